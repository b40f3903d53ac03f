// `services.state`: what a connector keeps between deliveries (a Bluesky session's tokens), sealed
// like the secrets (docs/design.md "Data model") and never returned; null until one is saved.
// `deliveries.remote_id`: the target's own id for what it made (a Bluesky record's at:// URI, a
// Mastodon status id), beside `remote_url`, the address people open.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('services').addColumn('state', 'text').execute();
  await db.schema.alterTable('deliveries').addColumn('remote_id', 'text').execute();
}
