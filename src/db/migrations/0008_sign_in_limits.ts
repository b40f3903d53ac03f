// Sign-in limits as counters, one row per key (docs/sign-in-limits.md): a key is an account and
// client address, an account, or an address, HMAC'd so that no usernames or addresses are kept.
// A counter row can be reserved in one statement (an upsert whose update is conditional), which
// is what makes the count and the check one atomic step on both databases. It replaces the
// failure log of 0002, which was counted and then checked in separate steps.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sign_in_limits')
    .addColumn('key_hash', 'text', (col) => col.primaryKey())
    // When the current window (or run of failures) began: a release counts back only in it.
    .addColumn('window_start', 'bigint', (col) => col.notNull())
    // Attempts reserved in the window, the ones still being checked included, minus successes.
    .addColumn('failures', 'integer', (col) => col.notNull())
    // Accounts only: the wait after the latest attempt, and when the next one may be checked.
    .addColumn('delay_ms', 'bigint', (col) => col.notNull())
    .addColumn('next_at', 'bigint', (col) => col.notNull())
    // From this time on the row says nothing: the next attempt starts afresh, housekeeping deletes it.
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sign_in_limits_expires').on('sign_in_limits').column('expires_at').execute();
  await db.schema.dropTable('sign_in_failures').execute();
}
