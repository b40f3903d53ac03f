// CSRF for the pages' forms and the scripts' API calls (docs/oauth.md "Forms of the web pages").
//
// The token is an HMAC bound to the browser's session: of the session cookie when there is one,
// so a token read with one session is refused with another; before signing in (the sign-in,
// setup and registration forms) of a random nonce cookie, `wp_csrf`. A page on the same site
// (another port of the host, a sibling subdomain over http) can plant cookies, the nonce among
// them, and read the matching token from the sign-in page like any visitor. So a form POST must
// also come from one of this server's own pages, which such a page cannot fake: Fetch Metadata
// `Sec-Fetch-Site: same-origin` (or `none`, a request the person made themselves), or, from a
// browser that sends no Fetch Metadata, an `Origin` equal to the server's. `Origin: null` (what
// Chromium sends under `Referrer-Policy: no-referrer`) is not enough.
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { deriveKey, randomToken, safeEqual } from '../lib/crypto.ts';
import { cookieName, readCookie, setCookie } from './cookies.ts';

const NONCE = /^[A-Za-z0-9_-]{43}$/;
const NONCE_TTL_SECONDS = 24 * 60 * 60;

/** What this browser's token is bound to: its session, else its pre-session nonce. */
function binding(request: FastifyRequest, baseUrl: string): string | undefined {
  const session = readCookie(request, baseUrl, 'wp_session');
  if (session) return `session:${session}`;
  const nonce = readCookie(request, baseUrl, 'wp_csrf');
  return nonce && NONCE.test(nonce) ? `browser:${nonce}` : undefined;
}

function tokenFor(secretKey: Buffer, bound: string): string {
  return createHmac('sha256', deriveKey(secretKey, 'csrf')).update(bound).digest('base64url');
}

/** The form token for this browser; a browser with neither session nor nonce gets a nonce. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, baseUrl: string, secretKey: Buffer): string {
  let bound = binding(request, baseUrl);
  if (!bound) {
    const nonce = randomToken(32);
    setCookie(reply, request, baseUrl, 'wp_csrf', nonce, NONCE_TTL_SECONDS);
    // The same request may render the token before the browser stores the cookie.
    const cookie = `${cookieName(baseUrl, 'wp_csrf')}=${nonce}`;
    request.headers.cookie = request.headers.cookie ? `${request.headers.cookie}; ${cookie}` : cookie;
    bound = `browser:${nonce}`;
  }
  return tokenFor(secretKey, bound);
}

/** Whether `sent` is this browser's token (bound to its session, or before one to its nonce). */
export function csrfTokenValid(request: FastifyRequest, baseUrl: string, secretKey: Buffer, sent: unknown): boolean {
  const bound = binding(request, baseUrl);
  return typeof sent === 'string' && bound !== undefined && safeEqual(sent, tokenFor(secretKey, bound));
}

/** Whether a request that changes something was sent by one of this server's own pages. */
export function fromOwnPage(request: FastifyRequest, baseUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  return request.headers.origin === new URL(baseUrl).origin;
}

/** Why a form POST may not run (`other_site`: not sent by our pages; `expired`: no valid token). */
export type FormRefusal = 'other_site' | 'expired';

export function formRefusal(
  request: FastifyRequest,
  baseUrl: string,
  secretKey: Buffer,
  token: unknown,
): FormRefusal | undefined {
  if (!fromOwnPage(request, baseUrl)) return 'other_site';
  return csrfTokenValid(request, baseUrl, secretKey, token) ? undefined : 'expired';
}
