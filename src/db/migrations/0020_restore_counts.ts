// Restores from a Waypost export (docs/imports.md "Restoring an export") count what they
// brought back per kind of object; location files leave it null.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('imports').addColumn('items', 'text').execute();
}
