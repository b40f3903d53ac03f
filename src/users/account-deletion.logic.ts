// Deleting an account for good (docs/data-ownership.md "Deleting an account"): the account
// page and `waypost user delete` call this. What other features keep about the account and no
// foreign key takes with it, they say through `AccountTraces` (composed in src/account-traces.ts).
import { sql } from 'kysely';
import type { Database, Db } from '../db/database.ts';
import { deleteAccountRows } from './account-deletion.repo.ts';
import { findUserById } from './users.repo.ts';

export interface AccountTraces {
  /** Inside the deletion's transaction, before the rows go; answers the content hashes of the account's files. */
  forget(trx: Db, userId: string): Promise<string[]>;
  /** The key of the account's own sign-in count (src/account/sign-in-limits.logic.ts), deleted with it. */
  limitKey?: ((username: string) => string) | undefined;
  /** After the commit: the files no other account holds go (src/media/media.removal.ts). */
  removeFiles(db: Db, hashes: string[]): Promise<void>;
}

/**
 * Deletes an account and everything keyed by it, in one transaction: items, settings, views,
 * services with their secrets, groups, deliveries and their jobs, Idempotency-Key records,
 * OAuth grants, tokens and codes, web sessions. Then every media file no other account
 * references, and on SQLite the write-ahead log is checkpointed and truncated so the deleted
 * rows (already zeroed in the database file by `secure_delete`) are not left in the log either.
 * False when there is no such account.
 */
export async function deleteAccount(database: Database, userId: string, traces: AccountTraces): Promise<boolean> {
  const { db } = database;
  const user = await findUserById(db, userId);
  if (!user) return false;
  const { hashes, deleted } = await db.transaction().execute(async (trx) => {
    const hashes = await traces.forget(trx, userId);
    const limitKey = traces.limitKey?.(user.username);
    const deleted = await deleteAccountRows(trx, { id: userId, limitKey });
    return { hashes, deleted };
  });
  await traces.removeFiles(db, hashes);
  if (database.dialect === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  return deleted;
}
