import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { AppError, badRequest, notFound, type FieldError, invalid } from '../core/errors.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';
import { feedUrls } from './public-urls.ts';
import {
  findUserByUsername,
  deleteSetupTokens,
  insertUser,
  listUserRows,
  updatePasswordHash,
  type NewUserRow,
  type UserRow,
} from './users.repo.ts';
import { BIO_MAX, DISPLAY_NAME_MAX, passwordProblem, usernameKey, usernameProblem } from './users.rules.ts';
import type { PublicProfile } from './users.schemas.ts';

/** An account as the rest of the code sees it: never the password hash. */
export interface User {
  id: string;
  username: string;
  displayName: string;
  bio: string;
  createdAt: number;
}

export interface NewUser {
  username: string;
  password: string;
  displayName?: string | undefined;
  bio?: string | undefined;
}

export function userFromRow(row: Pick<UserRow, 'id' | 'username' | 'display_name' | 'bio' | 'created_at'>): User {
  return { id: row.id, username: row.username, displayName: row.display_name, bio: row.bio, createdAt: row.created_at };
}

function validateNewUser(input: NewUser): FieldError[] {
  const errors: FieldError[] = [];
  const username = usernameProblem(input.username);
  if (username) errors.push({ path: 'body/username', message: username });
  const password = passwordProblem(input.password);
  if (password) errors.push({ path: 'body/password', message: password });
  if ((input.displayName ?? '').length > DISPLAY_NAME_MAX) {
    errors.push({ path: 'body/display_name', message: `must be at most ${DISPLAY_NAME_MAX} characters` });
  }
  if ((input.bio ?? '').length > BIO_MAX)
    errors.push({ path: 'body/bio', message: `must be at most ${BIO_MAX} characters` });
  return errors;
}

const usernameTaken = (username: string) => new AppError('username_taken', `The username "${username}" is taken.`);

/** Creates an account; 400 for a bad name or password, 409 when the name is taken (in any case). */
export async function createUser(
  db: Db,
  input: NewUser,
  passwordCost?: Parameters<typeof hashPassword>[1],
): Promise<User> {
  const errors = validateNewUser(input);
  if (errors.length > 0) throw invalid('The account is invalid', errors);
  if (await findUserByUsername(db, input.username)) throw usernameTaken(input.username);

  const now = nowMs();
  const row: NewUserRow = {
    id: newId(),
    username: input.username,
    username_key: usernameKey(input.username),
    password_hash: await hashPassword(input.password, passwordCost),
    display_name: input.displayName?.trim() || input.username,
    bio: input.bio ?? '',
    created_at: now,
    updated_at: now,
  };
  try {
    await insertUser(db, row);
    // An account exists now: a setup link printed earlier must never work again, even once the
    // server is empty again (src/users/setup.logic.ts).
    await deleteSetupTokens(db);
  } catch (error) {
    // Two requests for the same name at once: the unique index decides.
    if (isUniqueViolation(error)) throw usernameTaken(input.username);
    throw error;
  }
  return userFromRow(row);
}

export async function listUsers(db: Db): Promise<User[]> {
  return (await listUserRows(db)).map(userFromRow);
}

/** The user's row; 404 when there is no such user. */
async function userRow(db: Db, username: string): Promise<UserRow> {
  const row = await findUserByUsername(db, username);
  if (!row) throw notFound(`There is no user "${username}".`);
  return row;
}

export async function getUser(db: Db, username: string): Promise<User> {
  return userFromRow(await userRow(db, username));
}

export async function changePassword(db: Db, username: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw badRequest(`The password ${problem}.`, [{ path: 'body/password', message: problem }]);
  const user = await getUser(db, username);
  await updatePasswordHash(db, user.id, await hashPassword(password), nowMs());
}

/**
 * The account for a username and password, or undefined. Takes the same time whether or not
 * the username exists, so the answer does not tell which.
 */
export async function authenticate(db: Db, username: string, password: string): Promise<User | undefined> {
  const row = usernameProblem(username) ? undefined : await findUserByUsername(db, username);
  const ok = await verifyPassword(row?.password_hash ?? (await decoyHash()), password);
  return row && ok ? userFromRow(row) : undefined;
}

export function toPublicProfile(user: User, counts: PublicProfile['public_counts'], baseUrl: string): PublicProfile {
  return {
    username: user.username,
    display_name: user.displayName,
    bio: user.bio,
    created_at: msToSeconds(user.createdAt),
    public_counts: counts,
    feeds: feedUrls(baseUrl, user.username),
  };
}

export async function getPublicProfile(db: Db, username: string, baseUrl: string): Promise<PublicProfile> {
  const row = await userRow(db, username);
  // Kept by triggers with every write of an item (migration 0006): no counting per request.
  const counts = { posts: row.public_posts, media: row.public_media, locations: row.public_locations };
  return toPublicProfile(userFromRow(row), counts, baseUrl);
}
