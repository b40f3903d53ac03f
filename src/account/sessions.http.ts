// The session and device cookies of the pages, over HTTP: what src/account/sessions.logic.ts
// keeps, carried in an HttpOnly, SameSite=Lax cookie (Secure and `__Host-` over https:
// ./cookies.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { readCookie, setCookie } from './cookies.ts';
import { csrfTokenValid } from './csrf.ts';
import {
  closeSession,
  DEVICE_TTL_SECONDS,
  openSession,
  SESSION_TTL_MS,
  sessionOf,
  sessionUserOf,
} from './sessions.logic.ts';
import type { Client } from './sign-in-limits.logic.ts';

/** The signed-in user's id for this request's session cookie, if any. */
export async function sessionUserId(db: Db, baseUrl: string, request: FastifyRequest): Promise<string | undefined> {
  return sessionUserOf(db, readCookie(request, baseUrl, 'wp_session'));
}

/**
 * The browser session of this request, for the API's auth hook: whose it is, when it ends, and
 * a check of the CSRF token a script sends (the same token the pages' forms carry).
 */
export function browserSessions(db: Db, baseUrl: string, secretKey: Buffer) {
  return async (request: FastifyRequest) => {
    const session = await sessionOf(db, readCookie(request, baseUrl, 'wp_session'));
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
  const token = await openSession(db, readCookie(request, baseUrl, 'wp_session'), userId);
  setCookie(reply, request, baseUrl, 'wp_session', token, SESSION_TTL_MS / 1000);
}

export async function endSession(db: Db, request: FastifyRequest, reply: FastifyReply, baseUrl: string): Promise<void> {
  await closeSession(db, readCookie(request, baseUrl, 'wp_session'));
  setCookie(reply, request, baseUrl, 'wp_session', '', 0);
}

/** Who is signing in, as the limits see it: the address, and this browser's device cookie. */
export function signInClient(request: FastifyRequest, baseUrl: string): Client {
  return { ip: request.ip, device: readCookie(request, baseUrl, 'wp_device') };
}

/** Keeps the device cookie of a successful sign-in (renewed on each). */
export function rememberDevice(request: FastifyRequest, reply: FastifyReply, baseUrl: string, device: string): void {
  setCookie(reply, request, baseUrl, 'wp_device', device, DEVICE_TTL_SECONDS);
}
