import { sql, type Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import type { Database } from './database.ts';
import { migrations } from './migrations/index.ts';

export class MigrationError extends Error {
  override name = 'MigrationError';
}

async function run(db: Kysely<unknown>, migrationTableSchema?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((result) => result.status === 'Error');
  if (error || failed) {
    const cause = error instanceof Error ? error.message : 'unknown error';
    throw new MigrationError(`migration ${failed?.migrationName ?? '?'} failed: ${cause}`, { cause: error });
  }
  return results.map((result) => result.migrationName);
}

/**
 * Brings the schema up to date and returns the names of the migrations it applied. Safe when
 * several processes start at once: on PostgreSQL, Kysely's migrator takes an advisory lock and
 * runs the migrations in a transaction; on SQLite, where Kysely takes no lock, the whole run is
 * one `BEGIN IMMEDIATE` transaction, so a second process waits (busy timeout) and then finds
 * nothing left to do, and a failed migration leaves no half-changed schema.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  if (database.dialect === 'postgres') {
    // Kysely looks for its own tables by name in every schema unless told which one: name
    // the schema we work in, or a second Waypost in the same database would fool it.
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
    return run(database.db as Kysely<unknown>, rows[0]?.schema);
  }
  return database.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const applied = await run(connection as Kysely<unknown>);
      await sql`commit`.execute(connection);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}
