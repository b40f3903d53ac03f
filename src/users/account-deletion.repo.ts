// The SQL of deleting an account (docs/data-ownership.md). The item tables' triggers (migration
// 0006) keep the public counters and `items_version` right on every delete here.
import { SqliteAdapter, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { likeLiteral } from '../db/like.ts';

/**
 * Everything keyed by the account, then the account row, whose foreign keys take its items,
 * settings, views, services, groups (and their members) and web sessions with it. What has no
 * foreign key to the user is deleted by name first: Idempotency-Key records, the OAuth server's
 * grants, tokens, codes and sessions (by account), its sign-in interactions that name the
 * account, and failed sign-ins counted against the account name. (Deliveries and their jobs go
 * before, by the caller's `AccountTraces`.)
 */
export async function deleteAccountRows(
  db: Db,
  account: { id: string; limitKey: string | undefined },
): Promise<boolean> {
  const userId = account.id;
  await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).execute();
  await db.deleteFrom('oauth_entities').where('account_id', '=', userId).execute();
  await sql`delete from oauth_entities where kind = 'Interaction'
    and payload like ${`%"${likeLiteral(userId)}"%`} escape '\\'`.execute(db);
  if (account.limitKey) await db.deleteFrom('sign_in_limits').where('key_hash', '=', account.limitKey).execute();
  // The items first, explicitly, so a big history is not one cascade hidden behind the row.
  for (const table of ['posts', 'media', 'locations'] as const) {
    await db.deleteFrom(table).where('user_id', '=', userId).execute();
  }
  const result = await db.deleteFrom('users').where('id', '=', userId).executeTakeFirst();
  await forgetSearchTokens(db);
  return result.numDeletedRows > 0n;
}

/**
 * The triggers of migration 0034 took the account's rows out of the search index, but SQLite's
 * FTS5 only marks a deleted document's words as deleted until its segments are merged: merging
 * them all now (`optimize`) leaves no word of the account in the index's pages.
 */
async function forgetSearchTokens(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`insert into search_fts (search_fts) values ('optimize')`.execute(db);
  }
}
