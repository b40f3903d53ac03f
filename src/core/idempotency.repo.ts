// All SQL for Idempotency-Key records: one row per (user, operation, key).
import type { Db } from '../db/database.ts';
import type { IdempotencyKeysTable } from '../db/schema.ts';
import { sql } from 'kysely';
import { likeLiteral } from '../db/like.ts';

export type IdempotencyRow = IdempotencyKeysTable;
type KeyOf = Pick<IdempotencyRow, 'user_id' | 'scope' | 'key'>;

export async function insertKey(db: Db, row: IdempotencyRow): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

export function findKey(db: Db, key: KeyOf): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('user_id', '=', key.user_id)
    .where('scope', '=', key.scope)
    .where('key', '=', key.key)
    .executeTakeFirst();
}

/** Replaces a record, but only if it is still the one that was read (`created_at` unchanged). */
export async function replaceKey(db: Db, seen: IdempotencyRow, next: IdempotencyRow): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set(next)
    .where('user_id', '=', seen.user_id)
    .where('scope', '=', seen.scope)
    .where('key', '=', seen.key)
    .where('created_at', '=', seen.created_at)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function storeResponse(db: Db, key: KeyOf, response: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response })
    .where('user_id', '=', key.user_id)
    .where('scope', '=', key.scope)
    .where('key', '=', key.key)
    .execute();
}

/** Forgets an unfinished record (the request failed), so the key can be used again. */
export async function deletePendingKey(db: Db, key: KeyOf): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', key.user_id)
    .where('scope', '=', key.scope)
    .where('key', '=', key.key)
    .where('response', 'is', null)
    .execute();
}

/** Deletes records whose time is over: a retry after that is a new request. */
export async function purgeExpiredKeys(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The Idempotency-Key records whose stored answer names the object `id` (it is being deleted). */
export async function deleteResponsesNaming(db: Db, userId: string, id: string): Promise<void> {
  await sql`delete from idempotency_keys where user_id = ${userId}
    and response like ${`%"id":"${likeLiteral(id)}"%`} escape '\\'`.execute(db);
}
