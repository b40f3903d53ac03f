// The resource-server side of OAuth2, in one place (docs/conventions.md 6): one hook reads
// `Authorization: Bearer`, resolves the token, and enforces the permission the route declares
// in its config. No handler checks a token by hand.
//
//   app.get('/services', { config: { auth: 'required', permission: 'get_services' } }, ...)
//   app.get('/posts/id/:id', { config: { auth: 'optional' } }, ...)   // handler decides per object
//
// Statuses (docs/api.md "Scopes and who sees what"), RFC 6750 section 3:
//   no token                      401, WWW-Authenticate: Bearer realm="waypost"
//   bad/expired/revoked token     401, ... error="invalid_token"
//   token lacks the permission    401, ... error="insufficient_scope", scope="<permission>"
// A token in the query string (RFC 6750 2.3) is never read: RFC 9700 2.4 advises against it.
//
// The web app's own pages call the same API with the signed-in session cookie instead of a
// token (docs/oauth.md "The web app's own access"): only when no Authorization header is sent,
// only for same-origin requests, and for writes only with the session's X-CSRF-Token.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { PERMISSIONS, type Permission } from '../core/permissions.ts';
import {
  csrfFailed,
  insufficientScope,
  invalidToken,
  resourceChallenge,
  unauthorized,
  wrongAudience,
  type Auth,
} from '../core/caller.ts';

/** Resolves a presented access token; undefined when it is unknown, expired or revoked. */
export type BearerResolver = (token: string) => Promise<Auth | undefined>;

/** A signed-in browser session, as src/account/ finds it for a request. */
export interface BrowserSession {
  userId: string;
  username: string;
  expiresAt: number;
  /** Whether the X-CSRF-Token sent is this browser's. */
  csrfValid: (token: string | undefined) => boolean;
}

export type SessionResolver = (request: FastifyRequest) => Promise<BrowserSession | undefined>;

/** The client id an Auth from the web app's session carries. */
export const WEB_CLIENT_ID = 'waypost-web';

const EVERY_PERMISSION: ReadonlySet<Permission> = new Set(Object.keys(PERMISSIONS) as Permission[]);

/** What a signed-in browser session may do: everything its person may (the web app's pages too). */
export function sessionAuth({ userId, username, expiresAt }: Omit<BrowserSession, 'csrfValid'>): Auth {
  return { userId, username, expiresAt, clientId: WEB_CLIENT_ID, grantId: '', permissions: EVERY_PERMISSION };
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required`: a valid token or 401. `optional`: a token is read if sent (and must be valid). */
    auth?: 'required' | 'optional';
    /** The permission the route needs (implies `auth: 'required'`). */
    permission?: Permission;
    /**
     * A protected resource with tokens of its own (RFC 8707, src/oauth/resources.ts): only a token
     * bound to `resource` is good here (and such a token nowhere else), no browser session counts,
     * and every 401 names the resource's metadata (RFC 9728) in its challenge.
     */
    boundTo?: { resource: string; metadataUrl: string };
  }
  interface FastifyRequest {
    auth: Auth | undefined;
  }
}

/** The caller's auth, with the permission checked: for routes whose need depends on the object. */
export function requirePermission(request: FastifyRequest, permission: Permission): Auth {
  if (!request.auth) throw unauthorized();
  if (!request.auth.permissions.has(permission)) throw insufficientScope(permission);
  return request.auth;
}

/** The bearer token in the Authorization header, '' for a malformed one, undefined when absent. */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1] ?? '';
}

async function auth(
  app: FastifyInstance,
  { resolve, session }: { resolve: BearerResolver; session?: SessionResolver },
) {
  /**
   * The Auth of the signed-in browser, or undefined. Only the browser's own pages count: a
   * request another site caused (Sec-Fetch-Site other than same-origin; `none`, a navigation the
   * person typed, for reads only) is treated as carrying no session at all. A write needs the
   * session's CSRF token as well, or it is refused (403) rather than run anonymously.
   */
  async function fromSession(request: FastifyRequest): Promise<Auth | undefined> {
    if (!session || request.headers.cookie === undefined) return undefined;
    const safe = SAFE_METHODS.has(request.method);
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && !(safe && site === 'none')) return undefined;
    const found = await session(request);
    if (!found) return undefined;
    const sent = request.headers['x-csrf-token'];
    if (!safe && !found.csrfValid(typeof sent === 'string' ? sent : undefined)) throw csrfFailed();
    return sessionAuth(found);
  }

  app.decorateRequest('auth', undefined);

  // The OpenAPI document shows each route's permission as an oauth2 security requirement.
  app.addHook('onRoute', (route) => {
    const { auth: mode, permission } = route.config ?? {};
    if (!mode && !permission) return;
    const requirement = { oauth2: permission ? [permission] : [] };
    route.schema = {
      ...route.schema,
      security: mode === 'optional' && !permission ? [{}, requirement] : [requirement],
    };
  });

  async function authenticate(
    request: FastifyRequest,
    mode: 'required' | 'optional' | undefined,
    permission?: Permission,
    boundTo?: { resource: string; metadataUrl: string },
  ) {
    const token = bearerToken(request);
    const challenge = resourceChallenge(boundTo?.metadataUrl);
    let resolved: Auth | undefined;
    if (token === undefined) {
      resolved = boundTo ? undefined : await fromSession(request);
      if (!resolved) {
        if (mode === 'optional' && !permission) return;
        throw unauthorized(undefined, challenge);
      }
    } else {
      resolved = token ? await resolve(token) : undefined;
      if (!resolved) throw invalidToken(challenge);
      // RFC 8707: a token bound to a resource is good there alone; a plain one is not good there.
      if (resolved.audience !== boundTo?.resource) throw wrongAudience(challenge);
    }
    request.auth = resolved;
    if (permission && !resolved.permissions.has(permission)) throw insufficientScope(permission);
  }

  app.addHook('onRequest', (request, _reply, done) => {
    const { auth: mode, permission, boundTo } = request.routeOptions.config;
    // Most requests name neither: answered without a promise.
    if (!mode && !permission) return done();
    authenticate(request, mode, permission, boundTo).then(() => done(), done);
  });
}

export default fp(auth, { name: 'auth' });
