// All SQL for services being connected through their server's sign-in (migration 0043), and
// for Waypost's registrations on those servers (migration 0053).
import type { Db } from '../db/database.ts';
import type { ServiceAppRegistrationsTable, ServiceConnectionsTable } from '../db/schema.services.ts';

export type ConnectionRow = ServiceConnectionsTable;

export async function insertConnection(db: Db, row: ConnectionRow): Promise<void> {
  await db.insertInto('service_connections').values(row).execute();
}

/**
 * Takes the person's connection with this state out (once: a second call finds nothing). Another
 * person's is neither found nor removed.
 */
export async function takeConnection(db: Db, userId: string, stateHash: string): Promise<ConnectionRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('service_connections')
      .selectAll()
      .where('user_id', '=', userId)
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const gone = await trx
      .deleteFrom('service_connections')
      .where('user_id', '=', userId)
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    return gone.numDeletedRows > 0n ? row : undefined;
  });
}

/** Housekeeping: connections the person never came back to. */
export async function purgeExpiredConnections(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('service_connections').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export type AppRegistrationRow = ServiceAppRegistrationsTable;
type AppKey = Pick<AppRegistrationRow, 'user_id' | 'server' | 'redirect_uri' | 'scopes'>;

export async function findAppRegistration(db: Db, key: AppKey): Promise<AppRegistrationRow | undefined> {
  return db
    .selectFrom('service_app_registrations')
    .selectAll()
    .where((eb) => eb.and(key))
    .executeTakeFirst();
}

/**
 * Keeps a registration, in place of the one kept for the same key: one the server no longer
 * knows, or (two connections at once) the other's.
 */
export async function keepAppRegistration(db: Db, row: AppRegistrationRow): Promise<void> {
  await db
    .insertInto('service_app_registrations')
    .values(row)
    .onConflict((conflict) =>
      conflict
        .columns(['user_id', 'server', 'redirect_uri', 'scopes'])
        .doUpdateSet({ client_id: row.client_id, client_secret: row.client_secret, created_at: row.created_at }),
    )
    .execute();
}
