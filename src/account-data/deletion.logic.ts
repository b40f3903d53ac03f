// Deleting for good (docs/data-ownership.md): one item, a range of locations, or a
// whole account with everything keyed by it. The API, the account page and `waypost user
// delete` call these functions; none of them knows HTTP.
import { accountLimitKey, type SignInLimits } from '../account/sign-in-limits.logic.ts';
import { rm } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Database, Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { insufficientScope, type Auth } from '../core/caller.ts';
import { notFound, invalid } from '../core/errors.ts';
import type { ItemTable } from '../items/items.repo.ts';
import { secondsToMs, TIME_LIMIT_MESSAGE, withinTimeLimit } from '../lib/time.ts';
import {
  filePath,
  finishRetired,
  publicCopyPath,
  retireShared,
  thumbnailPath,
  type Storage,
} from '../media/media.storage.ts';
import { forgetPublicCopy } from '../media/media.repo.ts';
import { findUserById } from '../users/users.repo.ts';
import {
  deleteAccountRows,
  deleteItemRow,
  deleteLocationRange,
  deletePostTraces,
  findOwnItem,
  hashInUse,
  mediaHashesOf,
  postsNamingMedium,
  setPostMediaIds,
} from './deletion.repo.ts';

const NO_SUCH: Record<ItemTable, string> = {
  posts: 'No such post.',
  media: 'No such medium.',
  locations: 'No such location.',
};

/**
 * A stored file goes when no medium of any account has its content any more: the original,
 * its thumbnail and its public copy. Called after the rows' transaction committed. The
 * original is moved aside before the check, so an upload of the same content committing
 * meanwhile either is seen by the check or finds the file gone and puts its own copy in place
 * (src/media/media.storage.ts, "Files shared by content").
 */
export async function removeUnusedFiles(db: Db, storage: Storage, hashes: Iterable<string>): Promise<void> {
  for (const sha256 of hashes) {
    const original = filePath(storage, sha256);
    const aside = await retireShared(storage, original);
    const inUse = await hashInUse(db, sha256);
    await finishRetired(aside, original, inUse);
    if (inUse) continue;
    for (const path of [thumbnailPath(storage, sha256), publicCopyPath(storage, sha256)]) {
      await rm(path, { force: true });
    }
    await forgetPublicCopy(db, sha256);
  }
}

/**
 * DELETE /<kind>/id/<id>: the caller's own item, with the kind's write permission (checked by
 * the route). Another person's item and a missing one are the same 404; a private item needs
 * `get_private_scope` as reading it does (401 insufficient_scope, nothing deleted), so a token
 * that cannot see private items cannot probe or remove them either.
 */
export async function deleteItem(db: Db, storage: Storage, table: ItemTable, id: string, auth: Auth): Promise<void> {
  const item = await findOwnItem(db, table, auth.userId, id);
  if (!item) throw notFound(NO_SUCH[table]);
  if (item.scope === 'private' && !auth.permissions.has('get_private_scope')) {
    throw insufficientScope('get_private_scope');
  }
  const deleted = await db.transaction().execute(async (trx) => {
    if (table === 'posts') await deletePostTraces(trx, auth.userId, id);
    if (table === 'media') {
      // A post keeps its text when one of its media goes; it just no longer names it.
      for (const post of await postsNamingMedium(trx, auth.userId, id)) {
        const ids = (JSON.parse(post.media_ids) as string[]).filter((other) => other !== id);
        await setPostMediaIds(trx, auth.userId, post.id, ids);
      }
    }
    return deleteItemRow(trx, table, auth.userId, id);
  });
  // Deleted meanwhile by another request: the same answer as if it had never been.
  if (!deleted) throw notFound(NO_SUCH[table]);
  if (item.sha256) await removeUnusedFiles(db, storage, [item.sha256]);
}

export interface LocationRange {
  since_time: number;
  until_time: number;
  scope?: ScopeValue | undefined;
}

/**
 * DELETE /locations?since_time&until_time[&scope]: the caller's points with
 * since_time <= time < until_time. Without `scope` both scopes go, which needs
 * `get_private_scope`; `scope=public` needs only `write_locations`.
 */
export async function deleteLocations(db: Db, auth: Auth, range: LocationRange): Promise<{ deleted: number }> {
  const errors = (['since_time', 'until_time'] as const)
    .filter((name) => !withinTimeLimit(range[name]))
    .map((name) => ({ path: `querystring/${name}`, message: TIME_LIMIT_MESSAGE }));
  if (errors.length > 0) {
    throw invalid('The request is invalid', errors);
  }
  const scopes: ScopeValue[] = range.scope ? [range.scope] : ['public', 'private'];
  if (scopes.includes('private') && !auth.permissions.has('get_private_scope')) {
    throw insufficientScope('get_private_scope');
  }
  const sinceMs = secondsToMs(range.since_time);
  const untilMs = secondsToMs(range.until_time);
  if (sinceMs >= untilMs) return { deleted: 0 };
  return { deleted: await deleteLocationRange(db, auth.userId, { sinceMs, untilMs, scopes }) };
}

/**
 * Deletes an account and everything keyed by it, in one transaction: items, settings, views,
 * services with their secrets, groups, deliveries and their jobs, Idempotency-Key records,
 * OAuth grants, tokens and codes, web sessions. Then every media file no other account
 * references, and on SQLite the write-ahead log is checkpointed and truncated so the deleted
 * rows (already zeroed in the database file by `secure_delete`) are not left in the log either.
 * False when there is no such account. With `limits`, the account's sign-in count goes too.
 */
export async function deleteAccount(
  database: Database,
  storage: Storage,
  userId: string,
  limits?: SignInLimits,
): Promise<boolean> {
  const { db } = database;
  const user = await findUserById(db, userId);
  if (!user) return false;
  const { hashes, deleted } = await db.transaction().execute(async (trx) => {
    const hashes = await mediaHashesOf(trx, userId);
    // The account's own sign-in count names it too (src/account/sign-in-limits.logic.ts); the
    // counts per account and address are keyed so they cannot be found, and end with their window.
    const limitKey = limits ? accountLimitKey(limits, user.username) : undefined;
    const deleted = await deleteAccountRows(trx, { id: userId, limitKey });
    return { hashes, deleted };
  });
  await removeUnusedFiles(db, storage, hashes);
  if (database.dialect === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  return deleted;
}
