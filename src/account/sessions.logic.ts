// Web sessions for the sign-in, consent and account pages, and signing in: a random id, stored
// only as its SHA-256, rotated on every sign-in. Nothing here knows HTTP: the cookie that carries
// the id is ./sessions.http.ts. The JSON API reads the session only through src/http/auth.ts
// (docs/oauth.md "The web app's own access").
import type { Db } from '../db/database.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { nowMs } from '../lib/time.ts';
import { authenticate, type User } from '../users/users.logic.ts';
import { deleteSession, findSession, findSessionUserId, insertSession } from './sessions.repo.ts';
import { deviceToken, giveBack, reserveAttempt, type Client, type SignInLimits } from './sign-in-limits.logic.ts';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** The signed-in user's id for a session token, if it is a live session. */
export async function sessionUserOf(db: Db, token: string | undefined): Promise<string | undefined> {
  return token ? findSessionUserId(db, sha256Hex(token), nowMs()) : undefined;
}

/** The live session of a token: whose it is and when it ends. */
export async function sessionOf(db: Db, token: string | undefined) {
  return token ? findSession(db, sha256Hex(token), nowMs()) : undefined;
}

/** Starts a session for the user, ending the one `old` names (rotation on sign-in); answers the new token. */
export async function openSession(db: Db, old: string | undefined, userId: string): Promise<string> {
  if (old) await deleteSession(db, sha256Hex(old));
  const token = randomToken(32);
  const now = nowMs();
  await insertSession(db, {
    user_id: userId,
    id_hash: sha256Hex(token),
    created_at: now,
    expires_at: now + SESSION_TTL_MS,
  });
  return token;
}

export async function closeSession(db: Db, token: string | undefined): Promise<void> {
  if (token) await deleteSession(db, sha256Hex(token));
}

// --- sign-in, with the limits of src/account/sign-in-limits.logic.ts.

export const DEVICE_TTL_SECONDS = 365 * 24 * 60 * 60;

export type SignInResult =
  /** `device`: the device cookie to set (docs/sign-in-limits.md). */
  | { ok: true; user: User; device: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'limited'; retryAfterSeconds: number };

/**
 * Checks a username and password. The attempt is reserved first, as a failure, in one atomic
 * step per key (an unknown username counts like a known one, so the limits say nothing about
 * which names exist); refused, the password is not even checked. A right password gives the
 * reservation back.
 */
export async function signIn(
  db: Db,
  limits: SignInLimits,
  username: string,
  password: string,
  client: Client,
  now = nowMs(),
): Promise<SignInResult> {
  const reservation = await reserveAttempt(db, limits, username, client, now);
  if (!reservation.ok) return { ok: false, reason: 'limited', retryAfterSeconds: reservation.retryAfterSeconds };
  const user = await authenticate(db, username, password);
  if (!user) return { ok: false, reason: 'invalid' };
  await giveBack(db, reservation.reserved);
  const device = reservation.trusted && client.device ? client.device : deviceToken(limits, user.username);
  return { ok: true, user, device };
}

/** How a page answers a sign-in that did not succeed: status, headers and the words to show. */
export function signInRefusal(result: Exclude<SignInResult, { ok: true }>): {
  status: 401 | 429;
  headers: Record<string, string>;
  error: string;
} {
  if (result.reason === 'invalid') return { status: 401, headers: {}, error: SIGN_IN_FAILED };
  const seconds = result.retryAfterSeconds;
  return {
    status: 429,
    headers: { 'retry-after': String(seconds) },
    error: `Too many sign-in attempts. Try again in ${waitInWords(seconds)}.`,
  };
}

function waitInWords(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export const SIGN_IN_FAILED = 'The username or password is wrong.';
