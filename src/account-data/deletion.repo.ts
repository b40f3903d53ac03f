// All SQL of deleting a person's data: one item, a range of locations, or the whole account
// (docs/data-ownership.md). The item tables' triggers (migration 0006) keep the public counters
// and `items_version` right on every delete here, as on every other write.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { DELIVERY_JOB } from '../services/deliveries.logic.ts';
import { deleteJobs } from '../jobs/jobs.repo.ts';
import type { ItemTable } from '../items/items.repo.ts';

/** `%` and `_` match anything in LIKE; the ids we look for are matched as they are. */
const likeLiteral = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The owner and scope of an item, if it belongs to `userId` (the "is this mine" of a delete). */
export async function findOwnItem(
  db: Db,
  table: ItemTable,
  userId: string,
  id: string,
): Promise<{ scope: ScopeValue; sha256?: string } | undefined> {
  const { rows } = await sql<{ scope: ScopeValue; sha256?: string }>`select ${sql.raw(
    table === 'media' ? 'scope, sha256' : 'scope',
  )} from ${sql.table(table)} where ${sql.ref('user_id')} = ${userId} and ${sql.ref('id')} = ${id}`.execute(db);
  return rows[0];
}

export async function deleteItemRow(db: Db, table: ItemTable, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom(table).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * A post's deliveries and their queued jobs (a job's payload carries the post's text), and the
 * Idempotency-Key records whose stored answer is this post.
 */
export async function deletePostTraces(db: Db, userId: string, postId: string): Promise<void> {
  const deliveries = db
    .selectFrom('deliveries')
    .select('id')
    .where('user_id', '=', userId)
    .where('post_id', '=', postId);
  await deleteJobs(db, DELIVERY_JOB, deliveries);
  await db.deleteFrom('deliveries').where('user_id', '=', userId).where('post_id', '=', postId).execute();
  await sql`delete from idempotency_keys where user_id = ${userId}
    and response like ${`%"id":"${likeLiteral(postId)}"%`} escape '\\'`.execute(db);
}

/** The person's posts that name a medium in `media_ids`, to drop it from them. */
export async function postsNamingMedium(db: Db, userId: string, mediumId: string) {
  const { rows } = await sql<{ id: string; media_ids: string }>`select id, media_ids from posts
    where user_id = ${userId} and media_ids like ${`%"${likeLiteral(mediumId)}"%`} escape '\\'`.execute(db);
  return rows;
}

export async function setPostMediaIds(db: Db, userId: string, postId: string, mediaIds: string[]): Promise<void> {
  await db
    .updateTable('posts')
    .set({ media_ids: JSON.stringify(mediaIds) })
    .where('user_id', '=', userId)
    .where('id', '=', postId)
    .execute();
}

/** Whether any medium of any account still has this content (migration 0013's index). */
export async function hashInUse(db: Db, sha256: string): Promise<boolean> {
  const row = await db.selectFrom('media').select('id').where('sha256', '=', sha256).limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function deleteLocationRange(
  db: Db,
  userId: string,
  range: { sinceMs: number; untilMs: number; scopes: ScopeValue[] },
): Promise<number> {
  const result = await db
    .deleteFrom('locations')
    .where('user_id', '=', userId)
    .where('time', '>=', range.sinceMs)
    .where('time', '<', range.untilMs)
    .where('scope', 'in', range.scopes)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The distinct content hashes of a person's media: the files to look at after the rows go. */
export async function mediaHashesOf(db: Db, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('media').select('sha256').distinct().where('user_id', '=', userId).execute();
  return rows.map((row) => row.sha256);
}

/**
 * Everything keyed by the account, then the account row, whose foreign keys take its items,
 * settings, views, services, groups (and their members) and web sessions with it. What has no
 * foreign key to the user is deleted by name first: delivery jobs (by their delivery),
 * deliveries, Idempotency-Key records, the OAuth server's grants, tokens, codes and sessions
 * (by account), its sign-in interactions that name the account, and failed sign-ins counted
 * against the account name.
 */
export async function deleteAccountRows(
  db: Db,
  account: { id: string; limitKey: string | undefined },
): Promise<boolean> {
  const userId = account.id;
  const deliveries = db.selectFrom('deliveries').select('id').where('user_id', '=', userId);
  await deleteJobs(db, DELIVERY_JOB, deliveries);
  await db.deleteFrom('deliveries').where('user_id', '=', userId).execute();
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
  return result.numDeletedRows > 0n;
}
