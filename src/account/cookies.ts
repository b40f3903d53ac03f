// The web pages' cookies: `wp_session`, `wp_csrf` and `wp_device`, all HttpOnly and
// SameSite=Lax, Secure over https. When WAYPOST_BASE_URL is https their names carry the
// `__Host-` prefix (RFC 6265bis 4.1.3.2): a browser takes such a cookie only if it is Secure,
// has Path=/ and no Domain, so neither a sibling subdomain nor a plain-http page on the host can
// plant one. (Over http a Secure cookie cannot be set at all, so the prefix is https only.)
import type { FastifyReply, FastifyRequest } from 'fastify';

export type CookieName = 'wp_session' | 'wp_csrf' | 'wp_device';

/** The name a cookie has on this server: `__Host-` first when it is served over https. */
export function cookieName(baseUrl: string, name: CookieName): string {
  return baseUrl.startsWith('https:') ? `__Host-${name}` : name;
}

/** Reads one of the pages' cookies from the Cookie header (only under its name on this server). */
export function readCookie(request: FastifyRequest, baseUrl: string, name: CookieName): string | undefined {
  const wanted = cookieName(baseUrl, name);
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === wanted) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function isHttps(request: FastifyRequest, baseUrl: string): boolean {
  return request.protocol === 'https' || baseUrl.startsWith('https:');
}

/** Sets (or, with max age 0, clears) one of the pages' cookies. */
export function setCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  baseUrl: string,
  name: CookieName,
  value: string,
  maxAgeSeconds: number,
): void {
  const attributes = [
    `${cookieName(baseUrl, name)}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (isHttps(request, baseUrl)) attributes.push('Secure');
  void reply.header('set-cookie', attributes.join('; ')); // fastify adds to those set before
}
