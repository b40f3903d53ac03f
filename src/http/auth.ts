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
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Permission } from './permissions.ts';
import { AppError } from './errors.ts';

/** What an access token stands for: whose it is, through which grant, and what it allows now. */
export interface TokenGrant {
  userId: string;
  clientId: string;
  grantId: string;
  /** Effective permissions: the token's, minus any the person has since withdrawn. */
  permissions: ReadonlySet<Permission>;
  /** When the token expires, in milliseconds since the epoch. */
  expiresAt: number;
}

/** Who is calling, and what the token lets them do right now. */
export interface Auth extends TokenGrant {
  username: string;
}

/** Resolves a presented access token; undefined when it is unknown, expired or revoked. */
export type BearerResolver = (token: string) => Promise<Auth | undefined>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required`: a valid token or 401. `optional`: a token is read if sent (and must be valid). */
    auth?: 'required' | 'optional';
    /** The permission the route needs (implies `auth: 'required'`). */
    permission?: Permission;
  }
  interface FastifyRequest {
    auth: Auth | undefined;
  }
}

const REALM = 'Bearer realm="waypost"';

export function unauthorized(detail = 'This needs an access token: send it as Authorization: Bearer <token>.') {
  return new AppError('unauthorized', detail, { headers: { 'www-authenticate': REALM } });
}

export function invalidToken() {
  return new AppError('invalid_token', 'The access token is invalid, expired or revoked.', {
    headers: { 'www-authenticate': `${REALM}, error="invalid_token", error_description="The access token is invalid"` },
  });
}

export function insufficientScope(permission: Permission) {
  return new AppError('insufficient_scope', `The access token lacks the permission ${permission}.`, {
    headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${permission}"` },
  });
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

async function auth(app: FastifyInstance, { resolve }: { resolve: BearerResolver }) {
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
  ) {
    const token = bearerToken(request);
    if (token === undefined) {
      if (mode === 'optional' && !permission) return;
      throw unauthorized();
    }
    const resolved = token ? await resolve(token) : undefined;
    if (!resolved) throw invalidToken();
    request.auth = resolved;
    if (permission && !resolved.permissions.has(permission)) throw insufficientScope(permission);
  }

  app.addHook('onRequest', (request, _reply, done) => {
    const { auth: mode, permission } = request.routeOptions.config;
    // Most requests name neither: answered without a promise.
    if (!mode && !permission) return done();
    authenticate(request, mode, permission).then(() => done(), done);
  });
}

export default fp(auth, { name: 'auth' });
