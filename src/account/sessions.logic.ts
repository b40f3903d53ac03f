// Web sessions for the sign-in, consent and account pages: a random id in an HttpOnly,
// SameSite=Lax cookie (Secure and `__Host-` over https: ./cookies.ts), stored only as its SHA-256, rotated on every
// sign-in. The JSON API reads the session only through src/http/auth.ts (docs/oauth.md "The
// web app's own access").
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { nowMs } from '../lib/time.ts';
import { authenticate, type User } from '../users/users.logic.ts';
import { readCookie, setCookie } from './cookies.ts';
import { csrfTokenValid } from './csrf.ts';
import { deleteSession, findSession, findSessionUserId, insertSession } from './sessions.repo.ts';
import { deviceToken, giveBack, reserveAttempt, type Client, type SignInLimits } from './sign-in-limits.logic.ts';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** The signed-in user's id for this request's session cookie, if any. */
export async function sessionUserId(db: Db, baseUrl: string, request: FastifyRequest): Promise<string | undefined> {
  const token = readCookie(request, baseUrl, 'wp_session');
  return token ? findSessionUserId(db, sha256Hex(token), nowMs()) : undefined;
}

/**
 * The browser session of this request, for the API's auth hook: whose it is, when it ends, and
 * a check of the CSRF token a script sends (the same token the pages' forms carry).
 */
export function browserSessions(db: Db, baseUrl: string, secretKey: Buffer) {
  return async (request: FastifyRequest) => {
    const token = readCookie(request, baseUrl, 'wp_session');
    const session = token ? await findSession(db, sha256Hex(token), nowMs()) : undefined;
    if (!session) return undefined;
    const csrfValid = (sent: string | undefined) =>
      !foreignOrigin(request, baseUrl) && csrfTokenValid(request, baseUrl, secretKey, sent);
    return { ...session, csrfValid };
  };
}

/** An Origin naming another site. (`null` proves nothing; the auth hook reads Sec-Fetch-Site.) */
function foreignOrigin(request: FastifyRequest, baseUrl: string): boolean {
  const origin = request.headers.origin;
  return origin !== undefined && origin !== 'null' && origin !== new URL(baseUrl).origin;
}

/** Starts a session for the user, ending the one this browser had (rotation on sign-in). */
export async function startSession(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  userId: string,
): Promise<void> {
  const old = readCookie(request, baseUrl, 'wp_session');
  if (old) await deleteSession(db, sha256Hex(old));
  const token = randomToken(32);
  const now = nowMs();
  await insertSession(db, {
    user_id: userId,
    id_hash: sha256Hex(token),
    created_at: now,
    expires_at: now + SESSION_TTL_MS,
  });
  setCookie(reply, request, baseUrl, 'wp_session', token, SESSION_TTL_MS / 1000);
}

export async function endSession(db: Db, request: FastifyRequest, reply: FastifyReply, baseUrl: string): Promise<void> {
  const token = readCookie(request, baseUrl, 'wp_session');
  if (token) await deleteSession(db, sha256Hex(token));
  setCookie(reply, request, baseUrl, 'wp_session', '', 0);
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

/** Who is signing in, as the limits see it: the address, and this browser's device cookie. */
export function signInClient(request: FastifyRequest, baseUrl: string): Client {
  return { ip: request.ip, device: readCookie(request, baseUrl, 'wp_device') };
}

/** Keeps the device cookie of a successful sign-in (renewed on each). */
export function rememberDevice(request: FastifyRequest, reply: FastifyReply, baseUrl: string, device: string): void {
  setCookie(reply, request, baseUrl, 'wp_device', device, DEVICE_TTL_SECONDS);
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
