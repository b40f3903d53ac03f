import type { Db } from '../db/database.ts';
import type { Insertable, Selectable } from 'kysely';
import type { UsersTable } from '../db/schema.ts';
import { usernameKey } from './users.rules.ts';

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;

export function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('username_key', '=', usernameKey(username)).executeTakeFirst();
}

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listUserRows(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('username_key').execute();
}

export async function insertUser(db: Db, row: NewUserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updatePasswordHash(db: Db, id: string, passwordHash: string, now: number): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).execute();
}

/** Ends every setup link (src/users/setup.logic.ts): one exists only while no account does. */
export async function deleteSetupTokens(db: Db): Promise<void> {
  await db.deleteFrom('setup_tokens').execute();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Changes the profile fields given (GET /users/<username> shows them); the rest stay. */
export async function updateProfileRow(
  db: Db,
  id: string,
  change: { display_name?: string; bio?: string },
  now: number,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ ...change, updated_at: now })
    .where('id', '=', id)
    .execute();
}
