// SQL for web sessions and failed sign-ins. Both live in the database, so several processes
// share them (DESIGN.md "Growing past one machine").
import type { Db } from '../db/database.ts';

export async function insertSession(
  db: Db,
  row: { user_id: string; id_hash: string; created_at: number; expires_at: number },
): Promise<void> {
  await db.insertInto('web_sessions').values(row).execute();
}

export async function findSessionUserId(db: Db, idHash: string, now: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('web_sessions')
    .select('user_id')
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

export async function countFailures(db: Db, keyHash: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_hash', '=', keyHash)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The oldest failure in the window: the limit lifts when it leaves the window. */
export async function oldestFailure(db: Db, keyHash: string, since: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select('at')
    .where('key_hash', '=', keyHash)
    .where('at', '>', since)
    .orderBy('at')
    .executeTakeFirst();
  return row?.at;
}

export async function insertFailures(db: Db, keyHashes: string[], at: number): Promise<void> {
  await db
    .insertInto('sign_in_failures')
    .values(keyHashes.map((key_hash) => ({ key_hash, at })))
    .execute();
}

export async function deleteFailures(db: Db, keyHash: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('key_hash', '=', keyHash).execute();
}

export async function purgeExpiredSessions(db: Db, now: number, failuresBefore: number): Promise<number> {
  const sessions = await db.deleteFrom('web_sessions').where('expires_at', '<', now).executeTakeFirst();
  const failures = await db.deleteFrom('sign_in_failures').where('at', '<', failuresBefore).executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(failures.numDeletedRows);
}
