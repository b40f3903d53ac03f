// oidc-provider 9 configured as a plain OAuth 2 authorization server (no OpenID Connect):
// Authorization Code with PKCE S256 only, rotating refresh tokens, RFC 7009 revocation,
// RFC 7662 introspection, RFC 7591 registration of public clients, RFC 8414 metadata.
// See docs/oauth.md for the RFC 9700 items and the tests that cover them.
import type { FastifyBaseLogger } from 'fastify';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { nowMs } from '../lib/time.ts';
import { findUserById } from '../users/users.repo.ts';
import { createAdapter } from './adapter.ts';
import { clientSecretFor } from './clients.logic.ts';
import { cookieKeys, signingKeys } from './keys.ts';
import { deleteGrantEverywhere, findGrantIdFor } from './oauth.repo.ts';
import { renderError } from './pages.ts';
import { registrationProblem, UNAPPROVED_APP_TTL_MS } from './registration.logic.ts';
import { PERMISSION_NAMES } from '../core/permissions.ts';
import { knownResource, resourceServerInfo } from './resources.ts';

const DAY = 24 * 60 * 60;

/** Routes of oidc-provider; every one lives under /oauth (the issuer is the bare origin). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  registration: '/oauth/register',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
  device_authorization: '/oauth/device/auth',
  code_verification: '/oauth/device',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

function configuration(config: Config, db: Db): Configuration {
  const secretKey = config.secretKey;
  const serverHost = new URL(config.baseUrl).hostname;
  const Adapter = createAdapter(db, {
    onReplay: async (kind, grantId) => {
      // Two requests redeemed the same code or refresh token at once and this one lost: end the
      // whole grant (the winner's new tokens point to a grant that no longer exists).
      if (grantId) await deleteGrantEverywhere(db, grantId);
      throw new errors.InvalidGrant(`${kind === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
    },
    clientSecret: (clientId) => clientSecretFor(secretKey, clientId),
    unapprovedClientTtlMs: UNAPPROVED_APP_TTL_MS,
  });

  return {
    adapter: Adapter,
    clients: [],
    findAccount: async (_ctx, sub) =>
      (await findUserById(db, sub)) ? { accountId: sub, claims: async () => ({ sub }) } : undefined,

    // Our permissions are the scopes. `openid` is always added back internally (claims.openid
    // exists), so each client's `scope` allow-list refuses it (invalid_scope).
    scopes: PERMISSION_NAMES,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // Client metadata always carries this field and it must match a key in the JWKS, although
      // no id_token is ever issued here.
      id_token_signed_response_alg: 'ES256',
      scope: PERMISSION_NAMES.join(' '),
    },
    clientAuthMethods: ['none', 'client_secret_basic'],
    // The one hook that sees a registration with defaults applied and may reshape it: dynamic
    // registration is for public clients only (docs/api.md), they get no useless secret, and
    // what they may register is bounded (registration.logic.ts). It runs before oidc-provider's
    // own checks, so values may still be of any type.
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator(ctx, key, _value, metadata) {
        if (key !== 'software_id' || ctx?.oidc?.route !== 'registration') return;
        if (metadata.token_endpoint_auth_method !== 'none') {
          throw new errors.InvalidClientMetadata(
            'only public clients (token_endpoint_auth_method none) may register; ask the operator for a confidential one',
          );
        }
        const problem = registrationProblem(metadata, serverHost);
        if (problem) throw new errors.InvalidClientMetadata(problem);
        delete metadata.client_secret;
        delete metadata.client_secret_expires_at;
      },
    },
    responseTypes: ['code'], // RFC 9700 2.1.2: no implicit grant
    pkce: { required: () => true }, // RFC 9700 2.1.1: PKCE for every client; v9 knows only S256
    allowOmittingSingleRegisteredRedirectUri: false, // redirect_uri always sent, matched exactly

    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'), // no offline_access needed
    rotateRefreshToken: true, // RFC 9700 4.14.2: rotation, reuse of a spent one revokes the grant
    // The default binds tokens to the browser session of the consent page unless offline_access
    // was granted: signing out of the web pages must not kill an app's API access.
    expiresWithSession: async () => false,
    formats: { bitsOfOpaqueRandomness: 256 },
    ttl: {
      AccessToken: config.accessTokenTtl,
      AuthorizationCode: 60, // RFC 9700 4.5: short-lived codes
      RefreshToken: 30 * DAY, // each rotation gets a fresh 30 days; the grant bounds the total
      Grant: 365 * DAY,
      Interaction: 10 * 60,
      Session: 14 * DAY,
    },

    cookies: {
      keys: cookieKeys(secretKey),
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
      names: { session: 'wp_oauth_session', interaction: 'wp_oauth_interaction', resume: 'wp_oauth_resume' },
    },
    jwks: signingKeys(secretKey),

    features: {
      devInteractions: { enabled: false },
      introspection: {
        enabled: true,
        // RFC 7662 2.1: only authenticated callers. A public client's "authentication" is its
        // client_id alone, so it always gets {active: false}.
        allowedPolicy: async (_ctx, client) => client.clientAuthMethod !== 'none',
      },
      revocation: {
        enabled: true,
        // RFC 7009 2.1: a client revokes only its own tokens; 200 either way.
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      registration: {
        enabled: config.clientRegistrationOpen,
        initialAccessToken: false,
        issueRegistrationAccessToken: false, // no registration management, so it would be useless
      },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false }, // see docs/oauth.md (RFC 9700 2.2)
      // RFC 8707: a client that names a resource (an MCP client names /mcp) gets a token bound to
      // it, usable there and nowhere else (src/oauth/resources.ts). Without one, the token is the
      // plain API token every app has always had: no audience, opaque as before.
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => false,
        getResourceServerInfo: async (_ctx, resource) => {
          if (!knownResource(config.baseUrl, resource)) throw new errors.InvalidTarget();
          return resourceServerInfo(config.accessTokenTtl);
        },
      },
      claimsParameter: { enabled: false },
    },

    // A browser app (public client) may call the token and revocation endpoints from the
    // origins of its registered redirect URIs. Confidential clients are servers: no CORS.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),

    routes: OAUTH_ROUTES,
    interactions: { url: async (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },

    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { provider, client, session, result } = ctx.oidc;
      if (!client) return undefined;
      // 1. the grant the consent page just made, 2. the one this browser session remembers,
      // 3. one this account gave the client earlier (another browser): a person who already
      // granted the same permissions is not asked again.
      const grantId =
        (result?.consent as { grantId?: string } | undefined)?.grantId ??
        session?.grantIdFor(client.clientId) ??
        (session?.accountId ? await findGrantIdFor(db, session.accountId, client.clientId, nowMs()) : undefined);
      return grantId ? provider.Grant.find(grantId) : undefined;
    },

    renderError,
  };
}

export function createProvider(config: Config, db: Db, log: FastifyBaseLogger): Provider {
  const provider = new Provider(config.baseUrl, configuration(config, db));
  // Behind a TLS-terminating proxy, X-Forwarded-Proto decides ctx.secure (Secure cookies).
  provider.proxy = config.trustProxy;
  hookLogging(provider, log);
  // RFC 8414: oidc-provider serves /.well-known/oauth-authorization-server itself, with OpenID
  // fields. Trim it to plain OAuth metadata on the way out.
  provider.use(async (ctx, next) => {
    await next();
    const route = (ctx as unknown as KoaContextWithOIDC).oidc?.route;
    if (route === 'discovery' && ctx.status === 200) {
      ctx.body = oauthMetadata(ctx.body as Record<string, unknown>, config.baseUrl);
    }
  });
  return provider;
}

const METADATA_FIELDS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'revocation_endpoint',
  'introspection_endpoint',
  'registration_endpoint',
  'response_types_supported',
  'grant_types_supported',
  'code_challenge_methods_supported',
  'authorization_response_iss_parameter_supported',
  'token_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_methods_supported',
];

function oauthMetadata(discovery: Record<string, unknown>, issuer: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of METADATA_FIELDS) {
    const value = discovery[field];
    if (value === undefined) continue;
    // oidc-provider builds endpoint URLs from the request's Host; ours come from the configuration.
    out[field] =
      field.endsWith('_endpoint') && typeof value === 'string' ? new URL(new URL(value).pathname, issuer).href : value;
  }
  out.scopes_supported = PERMISSION_NAMES; // without `openid`
  out.response_modes_supported = ['query'];
  return out;
}

/** Fastify's per-request logger, keyed by the raw request oidc-provider sees as ctx.req. */
export const requestLoggers = new WeakMap<object, FastifyBaseLogger>();

type OAuthError = Error & { error?: string; error_description?: string; error_detail?: string };

/** oidc-provider reports through events; they go to pino without any token value. */
function hookLogging(provider: Provider, log: FastifyBaseLogger): void {
  const describe = (ctx: KoaContextWithOIDC, err: OAuthError) => ({
    route: ctx.oidc?.route,
    client_id: ctx.oidc?.client?.clientId,
    error: err.error,
    error_description: err.error_description,
    detail: err.error_detail, // library-written text ("refresh token already used"), no values
  });
  const logFor = (ctx: KoaContextWithOIDC) => requestLoggers.get(ctx.req) ?? log;
  for (const event of [
    'authorization.error',
    'grant.error',
    'introspection.error',
    'revocation.error',
    'registration_create.error',
    'discovery.error',
  ] as const) {
    provider.on(event as 'grant.error', (ctx: KoaContextWithOIDC, err: OAuthError) =>
      logFor(ctx).info({ oauth: describe(ctx, err) }, event),
    );
  }
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: OAuthError) =>
    logFor(ctx).error({ oauth: describe(ctx, err), err }, 'oauth server error'),
  );
  provider.on('grant.revoked', (_ctx: KoaContextWithOIDC, grantId: string) =>
    log.info({ grant_id: grantId }, 'oauth grant revoked'),
  );
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The OAuth server (tests issue tokens through it: test/tokens.ts). */
    oauthProvider: Provider;
  }
}
