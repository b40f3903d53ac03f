// Trackers: a service that brings points in has an ingest token. Only its SHA-256
// is kept, like OAuth tokens (src/lib/crypto.ts); null for services that take no points.
// The ingest URL names the service, so the hash is read by the service's primary key and
// needs no index of its own.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('services').addColumn('ingest_token_hash', 'text').execute();
}
