// SQL for web sessions. They live in the database, so several processes
// share them (docs/design.md "Growing past one machine").
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

/** The session's user and when it ends, for a live session. */
export async function findSession(
  db: Db,
  idHash: string,
  now: number,
): Promise<{ userId: string; username: string; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['web_sessions.user_id', 'users.username', 'web_sessions.expires_at'])
    .where('web_sessions.id_hash', '=', idHash)
    .where('web_sessions.expires_at', '>', now)
    .executeTakeFirst();
  return row && { userId: row.user_id, username: row.username, expiresAt: Number(row.expires_at) };
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

export async function purgeExpiredSessions(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Ends every session of a person (their password changed): each browser signs in again. */
export async function deleteUserSessions(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
}
