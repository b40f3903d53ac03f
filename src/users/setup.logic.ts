// First run: while the server has no account, a one-time setup link creates the first one.
// The link's token is random, printed only to the server log, and stored hashed, so only the
// operator, who can read the log, can use it; whoever reaches the server first cannot. One link
// works at a time: a new one (at a start, or when the last account is deleted) replaces the one
// printed before, and creating any account, by the link, the CLI or registration, ends it
// (createUser deletes the tokens), so a link from an earlier start never comes back to life when
// the server is empty again.
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { nowMs } from '../lib/time.ts';
import { createUser, type NewUser, type User } from './users.logic.ts';
import { countUsers, deleteSetupTokens } from './users.repo.ts';

export const SETUP_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

/** A fresh setup token when the server has no account yet; undefined once one exists. */
export async function issueSetupToken(db: Db): Promise<string | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  const token = randomToken();
  const now = nowMs();
  await deleteSetupTokens(db);
  await db
    .insertInto('setup_tokens')
    .values({ token_hash: sha256Hex(token), created_at: now, expires_at: now + SETUP_TOKEN_TTL_MS })
    .execute();
  return token;
}

/** The setup link for a token, as the log prints it. */
export const setupUrl = (baseUrl: string, token: string) => `${baseUrl}/setup?token=${token}`;

/**
 * What the log says when the server has no account (at a start, or once the last one is
 * deleted): a new setup link, or undefined when an account exists.
 */
export async function setupNotice(
  db: Db,
  baseUrl: string,
): Promise<{ setup_url: string; message: string } | undefined> {
  const token = await issueSetupToken(db);
  if (!token) return undefined;
  const url = setupUrl(baseUrl, token);
  return {
    setup_url: url,
    message:
      `No account exists yet. Create the first one at ${url} ` +
      '(works once, for 24 hours), or run: npm run waypost -- user add <username>',
  };
}

export async function setupTokenIsValid(db: Db, token: string): Promise<boolean> {
  const row = await db
    .selectFrom('setup_tokens')
    .select('expires_at')
    .where('token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  return row !== undefined && row.expires_at > nowMs() && (await countUsers(db)) === 0;
}

const invalidLink = () =>
  new AppError(
    'setup_link_invalid',
    'This setup link is not valid: it expired, was used, or an account exists already.',
  );

/**
 * Creates the first account with a setup token. One transaction: the token row is deleted
 * first, so of two requests racing with the same link only one gets past it; a rejected
 * account (bad name, short password) rolls back and leaves the link usable.
 */
export async function redeemSetupToken(db: Db, token: string, input: NewUser): Promise<User> {
  return db.transaction().execute(async (trx) => {
    const spent = await trx
      .deleteFrom('setup_tokens')
      .where('token_hash', '=', sha256Hex(token))
      .where('expires_at', '>', nowMs())
      .executeTakeFirst();
    if (spent.numDeletedRows !== 1n || (await countUsers(trx)) > 0) throw invalidLink();
    return createUser(trx, input);
  });
}
