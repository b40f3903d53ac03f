// Edits of delivered posts (docs/api.md "Deliveries"): a post whose text changes after it was
// delivered sends the change to the services that take edits (Mastodon, Micropub), and each
// delivery says how that went: `edit_status` (null: never edited; `pending`, `delivered`,
// `failed`, or `unsupported` by the service) and `edit_error`, the last attempt's error.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deliveries').addColumn('edit_status', 'text').execute();
  await db.schema.alterTable('deliveries').addColumn('edit_error', 'text').execute();
}
