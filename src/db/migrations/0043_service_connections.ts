// Services connected through the target's own sign-in (docs/api.md "Connecting a service by
// signing in"): between `POST /services/connect` and the person's return from the server's
// authorization page, what finishing needs waits here, one row per attempt. The row is found by
// the SHA-256 of the OAuth `state` and only for the person who started it; it is used once and
// lives 15 minutes (housekeeping deletes what is left). `pending` holds the app's client
// credentials and the PKCE verifier, sealed like a service's secrets.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_connections')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('state_hash', 'text', (col) => col.primaryKey())
    .addColumn('type', 'text', (col) => col.notNull())
    // A service whose token is replaced (signing in again), or null for a new service.
    .addColumn('service_id', 'text')
    .addColumn('name', 'text')
    // JSON: the service's settings besides the secrets (the server's address, import settings).
    .addColumn('config', 'text', (col) => col.notNull())
    .addColumn('pending', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('service_connections_user')
    .on('service_connections')
    .columns(['user_id', 'created_at'])
    .execute();
  await db.schema.createIndex('service_connections_expires').on('service_connections').column('expires_at').execute();
}
