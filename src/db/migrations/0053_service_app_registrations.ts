// Waypost's registration as an app on a person's server (docs/api.md "Connecting a service by
// signing in"): kept after the first connection, so signing in again, or connecting a second
// account there, does not register Waypost anew. One per person, server, callback address and
// scopes; the person's account takes it with it when deleted. `client_secret` is sealed like a
// service's secrets.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_app_registrations')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // The server's origin (`https://mastodon.social`).
    .addColumn('server', 'text', (col) => col.notNull())
    .addColumn('redirect_uri', 'text', (col) => col.notNull())
    .addColumn('scopes', 'text', (col) => col.notNull())
    .addColumn('client_id', 'text', (col) => col.notNull())
    .addColumn('client_secret', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('service_app_registrations_key', ['user_id', 'server', 'redirect_uri', 'scopes'])
    .execute();
}
