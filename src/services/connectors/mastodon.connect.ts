// Connecting a Mastodon account the way its apps do (docs.joinmastodon.org/client/token/):
// 1. Waypost registers itself as an app on the person's server: POST /api/v1/apps with
//    `client_name`, `redirect_uris`, `scopes` and `website` ("Create an application");
// 2. the person is sent to the server's authorization page (`response_type=code`, `client_id`,
//    `redirect_uri`, `scope`, `state`; PKCE `code_challenge` with S256, RFC 7636, where the
//    server says it takes it);
// 3. the code that comes back is exchanged at the token endpoint (`grant_type=
//    authorization_code`) for the access token, and verify_credentials names the account.
// Since Mastodon 4.3 a server describes its endpoints, scopes and PKCE methods in RFC 8414
// metadata (/.well-known/oauth-authorization-server); older servers, and other software that
// speaks Mastodon's API, get the fixed paths and no PKCE. Every request goes through the
// outbound guard, as deliveries do.
// The registration of step 1 is kept for the person (migration 0053) and used again the next
// time, once the server has shown it still knows it.
import { createHash, randomBytes } from 'node:crypto';
import { OutboundBlockedError, type Outbound } from '../../lib/ssrf.ts';
import { excerpt } from './connector.ts';
import { ConnectError, type AppRegistration, type AppRegistrations, type Connect } from './connect.ts';

/** What publishing and bringing statuses in need: the account's name, its statuses, writing
 * statuses and media (docs.joinmastodon.org/api/oauth-scopes/). */
const GRANULAR_SCOPES = 'read:accounts read:statuses write:statuses write:media';
/** For a server that lists its scopes without the granular ones. */
const BROAD_SCOPES = 'read write';

interface ServerMetadata {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  revocationEndpoint: string;
  registrationEndpoint: string;
  pkce: boolean;
  scopes: string;
}

/**
 * The server's origin from what a person types: `mastodon.social`, `https://mastodon.social/`,
 * or their address `@alice@mastodon.social`. Undefined when it names no server.
 */
export function instanceOrigin(input: string): string | undefined {
  let text = input.trim();
  const address = /^@?[^@\s/]+@([^@\s/]+)$/.exec(text);
  if (address) text = address[1]!;
  if (!/^https?:\/\//i.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  // A bare word (`mastodon`) is no server on the internet; a name without a dot is taken with a
  // port only (the outbound guard decides whether it may be reached).
  if (!url.hostname.includes('.') && !url.port) return undefined;
  return url.origin;
}

const sameOrigin = (value: unknown, origin: string): value is string => {
  if (typeof value !== 'string') return false;
  try {
    return new URL(value).origin === origin;
  } catch {
    return false;
  }
};

/** The server's RFC 8414 metadata where it has some; Mastodon's fixed paths otherwise. */
async function serverMetadata(outbound: Outbound, origin: string): Promise<ServerMetadata> {
  const fixed: ServerMetadata = {
    authorizationEndpoint: `${origin}/oauth/authorize`,
    tokenEndpoint: `${origin}/oauth/token`,
    revocationEndpoint: `${origin}/oauth/revoke`,
    registrationEndpoint: `${origin}/api/v1/apps`,
    pkce: false,
    scopes: GRANULAR_SCOPES,
  };
  let metadata: Record<string, unknown>;
  try {
    const response = await outbound.request(`${origin}/.well-known/oauth-authorization-server`, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      await response.body?.cancel();
      return fixed;
    }
    metadata = ((await response.json().catch(() => null)) ?? {}) as Record<string, unknown>;
  } catch (error) {
    // A refusal by the outbound rules is final; a server without metadata is an older one.
    if (error instanceof OutboundBlockedError) throw error;
    return fixed;
  }
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v) => typeof v === 'string') : undefined);
  const scopes = list(metadata.scopes_supported);
  // Endpoints on another origin are not followed: the server the person named is the one asked.
  const endpoint = (value: unknown, fallback: string) => (sameOrigin(value, origin) ? value : fallback);
  return {
    authorizationEndpoint: endpoint(metadata.authorization_endpoint, fixed.authorizationEndpoint),
    tokenEndpoint: endpoint(metadata.token_endpoint, fixed.tokenEndpoint),
    revocationEndpoint: endpoint(metadata.revocation_endpoint, fixed.revocationEndpoint),
    registrationEndpoint: endpoint(metadata.app_registration_endpoint, fixed.registrationEndpoint),
    pkce: list(metadata.code_challenge_methods_supported)?.includes('S256') ?? false,
    scopes: !scopes || scopes.includes('write:statuses') ? GRANULAR_SCOPES : BROAD_SCOPES,
  };
}

/** A request to the server that could not be made, in the person's words, beside the server field. */
function unreachable(origin: string, error: unknown): ConnectError {
  if (error instanceof OutboundBlockedError) return new ConnectError(error.message, 'instance_url');
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  return new ConnectError(
    `Waypost could not reach ${origin}${cause ? ` (${excerpt(cause, 120)})` : ''}. Check the address.`,
    'instance_url',
  );
}

async function form(outbound: Outbound, url: string, fields: Record<string, string>) {
  return outbound.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields).toString(),
  });
}

interface Registering {
  origin: string;
  server: ServerMetadata;
  redirectUri: string;
  appName: string;
  website: string;
}

/** Registers Waypost on the server as a new app. */
async function register(outbound: Outbound, { origin, server, redirectUri, appName, website }: Registering) {
  let registered: Response;
  try {
    registered = await form(outbound, server.registrationEndpoint, {
      client_name: appName,
      redirect_uris: redirectUri,
      scopes: server.scopes,
      website,
    });
  } catch (error) {
    throw unreachable(origin, error);
  }
  const app = (await registered.json().catch(() => null)) as { client_id?: unknown; client_secret?: unknown } | null;
  if (!registered.ok || typeof app?.client_id !== 'string' || typeof app.client_secret !== 'string') {
    throw new ConnectError(
      `${origin} did not let Waypost register as an app (it answered ${registered.status}). Is it a Mastodon server?`,
      'instance_url',
    );
  }
  return { clientId: app.client_id, clientSecret: app.client_secret };
}

/**
 * Whether the server still knows a kept registration (an admin may have removed it, or the
 * person revoked it): the client credentials grant (RFC 6749 4.4) gives a token only to a client
 * the server knows. The token is revoked at once (RFC 7009), as nothing uses it; where revoking
 * fails it stays an app's token, which acts for no account.
 */
async function stillRegistered(outbound: Outbound, { origin, server, redirectUri }: Registering, app: AppRegistration) {
  const client = { client_id: app.clientId, client_secret: app.clientSecret };
  let answer: Response;
  try {
    answer = await form(outbound, server.tokenEndpoint, {
      grant_type: 'client_credentials',
      ...client,
      redirect_uri: redirectUri,
      scope: server.scopes,
    });
  } catch (error) {
    throw unreachable(origin, error);
  }
  const token = (await answer.json().catch(() => null)) as { access_token?: unknown } | null;
  if (!answer.ok || typeof token?.access_token !== 'string') return false;
  try {
    const revoked = await form(outbound, server.revocationEndpoint, { ...client, token: token.access_token });
    await revoked.body?.cancel();
  } catch {
    // Revoking is tidying up; the registration is known either way.
  }
  return true;
}

/** The registration kept for this server if it still holds, else a new one, kept in its place for next time. */
async function registration(outbound: Outbound, apps: AppRegistrations, registering: Registering) {
  const { origin, server, redirectUri } = registering;
  const kept = await apps.find(origin, redirectUri, server.scopes);
  if (kept && (await stillRegistered(outbound, registering, kept))) return kept;
  const app = await register(outbound, registering);
  await apps.keep(origin, redirectUri, server.scopes, app);
  return app;
}

export const mastodonConnect: Connect = {
  normalize(config) {
    const origin = typeof config.instance_url === 'string' ? instanceOrigin(config.instance_url) : undefined;
    if (!origin) {
      throw new ConnectError('must be the address of your server, like mastodon.social', 'instance_url');
    }
    return { ...config, instance_url: origin };
  },

  async start({ config, redirectUri, state, outbound, appName, website, apps }) {
    const origin = String(config.instance_url);
    let server: ServerMetadata;
    try {
      server = await serverMetadata(outbound, origin);
    } catch (error) {
      throw unreachable(origin, error);
    }
    const app = await registration(outbound, apps, { origin, server, redirectUri, appName, website });
    const authorize = new URL(server.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope: server.scopes,
      state,
    };
    const pending: Record<string, string> = {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      token_endpoint: server.tokenEndpoint,
      scope: server.scopes,
    };
    if (server.pkce) {
      // RFC 7636 4.1: 32 random octets, base64url, as the verifier; S256 of it as the challenge.
      pending.code_verifier = randomBytes(32).toString('base64url');
      params.code_challenge = createHash('sha256').update(pending.code_verifier).digest('base64url');
      params.code_challenge_method = 'S256';
    }
    for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
    return { authorizeUrl: authorize.href, pending };
  },

  async finish({ config, pending, code, redirectUri, outbound }) {
    const origin = String(config.instance_url);
    let answer: Response;
    try {
      answer = await form(outbound, pending.token_endpoint ?? `${origin}/oauth/token`, {
        grant_type: 'authorization_code',
        code,
        client_id: pending.client_id ?? '',
        client_secret: pending.client_secret ?? '',
        redirect_uri: redirectUri,
        scope: pending.scope ?? GRANULAR_SCOPES,
        ...(pending.code_verifier ? { code_verifier: pending.code_verifier } : {}),
      });
    } catch (error) {
      throw unreachable(origin, error);
    }
    const token = (await answer.json().catch(() => null)) as {
      access_token?: unknown;
      error_description?: unknown;
    } | null;
    if (!answer.ok || typeof token?.access_token !== 'string' || token.access_token === '') {
      const said = typeof token?.error_description === 'string' ? `: ${excerpt(token.error_description, 160)}` : '';
      throw new ConnectError(`${origin} did not give Waypost a token (it answered ${answer.status}${said}).`);
    }
    const accessToken = token.access_token;
    const host = new URL(origin).host;
    let account = host;
    try {
      const response = await outbound.request(`${origin}/api/v1/accounts/verify_credentials`, {
        method: 'GET',
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      });
      const who = (await response.json().catch(() => null)) as { acct?: unknown } | null;
      if (response.ok && typeof who?.acct === 'string') account = `@${who.acct.split('@')[0]}@${host}`;
    } catch {
      // The token works or not whatever the name is; the service is named after the server.
    }
    return { secrets: { access_token: accessToken }, account };
  },
};
