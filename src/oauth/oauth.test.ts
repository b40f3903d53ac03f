// The authorization server end to end, driven by oauth4webapi (a strict client that checks
// state, iss and PKCE) against the real app on a loopback port. docs/oauth.md maps RFC 9700
// items to these tests.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationRequest, Browser, formOf, runFlow } from '../../test/browser.ts';
import { createTestUser } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { bearerResolver } from './bearer.ts';
import { addClient } from './clients.logic.ts';

const REDIRECT = 'http://127.0.0.1:1/callback'; // never contacted: the flow stops there
const insecure = { [oauth.allowInsecureRequests]: true } as const; // plain http on loopback
const publicAuth = oauth.None();

let t: Awaited<ReturnType<typeof listeningTestApp>>;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let person: { id: string; username: string; password: string };
let rs: { client: oauth.Client; auth: oauth.ClientAuth };
let resolve: ReturnType<typeof bearerResolver>;

beforeAll(async () => {
  t = await listeningTestApp({ env: { WAYPOST_METRICS_LOOPBACK: 'true' } });
  person = await createTestUser(t.database, { username: 'alice', password: 'correct horse battery' });
  resolve = bearerResolver(t.app.oauthProvider);

  // RFC 8414 discovery, as a strict client does it.
  const issuer = new URL(t.baseUrl);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );

  // RFC 7591 dynamic registration of a public client.
  const registration = await fetch(as.registration_endpoint!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test <App>', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  expect(registration.status).toBe(201);
  const registered = (await registration.json()) as { client_id: string; client_secret?: string };
  expect(registered.client_secret).toBeUndefined();
  client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };

  // A confidential client (a resource server) that may introspect, made as `waypost client add` does.
  const confidential = await addClient(t.app.oauthProvider, t.database.db, t.config.secretKey, {
    name: 'Resource server',
    redirectUris: ['https://rs.example/callback'],
    confidential: true,
  });
  rs = { client: { client_id: confidential.clientId }, auth: oauth.ClientSecretBasic(confidential.clientSecret!) };
});
afterAll(() => t.close());

interface AuthorizeOptions {
  scope?: string;
  browser?: Browser;
  decision?: 'allow' | 'deny';
  extra?: Record<string, string>;
  redirectUri?: string;
}

async function authorize(o: AuthorizeOptions = {}) {
  const { url, verifier, state } = await authorizationRequest(as, {
    clientId: client.client_id,
    redirectUri: o.redirectUri ?? REDIRECT,
    scope: o.scope ?? 'get_private_scope create_post',
    ...(o.extra ? { extra: o.extra } : {}),
  });
  const browser = o.browser ?? new Browser();
  const flow = await runFlow(browser, url, {
    redirectUri: REDIRECT,
    username: person.username,
    password: person.password,
    decision: o.decision ?? 'allow',
  });
  return { ...flow, verifier, state, browser };
}

async function codeFlow(o: AuthorizeOptions = {}) {
  const a = await authorize(o);
  expect(a.callback, JSON.stringify(a.stopped)).toBeDefined();
  const params = oauth.validateAuthResponse(as, client, a.callback!, a.state); // checks state and iss
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    publicAuth,
    params,
    REDIRECT,
    a.verifier,
    insecure,
  );
  expect(response.headers.get('cache-control')).toBe('no-store');
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { ...a, params, tokens };
}

async function refresh(refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(as, client, publicAuth, refreshToken, insecure);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return oauth.processRefreshTokenResponse(as, client, response);
}

async function oauthError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
      return error.error;
    }
    throw error;
  }
  throw new Error('expected an OAuth error');
}

describe('metadata and registration', () => {
  it('serves RFC 8414 metadata without OpenID fields', async () => {
    expect(as.issuer).toBe(t.baseUrl);
    expect(as.authorization_endpoint).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(as.token_endpoint).toBe(`${t.baseUrl}/oauth/token`);
    expect(as.revocation_endpoint).toBe(`${t.baseUrl}/oauth/revoke`);
    expect(as.introspection_endpoint).toBe(`${t.baseUrl}/oauth/introspect`);
    expect(as.registration_endpoint).toBe(`${t.baseUrl}/oauth/register`);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.scopes_supported).toEqual([
      'get_private_scope',
      'create_post',
      'get_services',
      'create_service',
      'delete_service',
      'manage_groups',
      'upload_media',
      'write_locations',
      'get_settings',
      'update_settings',
      'get_views',
      'manage_views',
      'export',
    ]);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic']);
    expect(as.jwks_uri).toBeUndefined();
    expect(as.userinfo_endpoint).toBeUndefined();
    expect((await fetch(`${t.baseUrl}/.well-known/openid-configuration`)).status).toBe(404);
  });

  it('oidc-provider responses carry X-Request-Id and the security headers, and are counted once', async () => {
    const count = async () => {
      const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const line =
        /http_requests_total\{method="GET",route="\/.well-known\/oauth-authorization-server",status_code="200"\} (\d+)/.exec(
          metrics,
        );
      return Number(line?.[1] ?? 0);
    };
    const before = await count();
    const response = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`, {
      headers: { 'x-request-id': 'trace-me-1' },
    });
    expect(response.headers.get('x-request-id')).toBe('trace-me-1');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await count()).toBe(before + 1);
  });

  it('registration refuses confidential clients', async () => {
    const response = await fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });
});

describe('the authorization code flow', () => {
  it('sign-in, consent, code, tokens; the API sees exactly the granted permissions', async () => {
    const { pages, params, tokens } = await codeFlow();
    expect(pages).toEqual(['login', 'consent']);
    expect(params.get('iss')).toBe(t.baseUrl);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeTypeOf('string');
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope?.split(' ').sort()).toEqual(['create_post', 'get_private_scope']);
    const auth = await resolve(tokens.access_token);
    expect(auth).toMatchObject({ userId: person.id, clientId: client.client_id });
    expect([...auth!.permissions].sort()).toEqual(['create_post', 'get_private_scope']);
  });

  it('stores only hashes of access tokens, refresh tokens and codes', async () => {
    const { params, tokens } = await codeFlow();
    const rows = await t.database.db.selectFrom('oauth_entities').selectAll().execute();
    const dump = JSON.stringify(rows);
    for (const secret of [tokens.access_token, tokens.refresh_token!, params.get('code')!]) {
      expect(dump).not.toContain(secret);
    }
    expect(rows.some((row) => row.kind === 'AccessToken' && row.id === sha256Hex(tokens.access_token))).toBe(true);
  });

  it('an existing grant skips consent (same browser: no page; new browser: sign-in only)', async () => {
    const first = await codeFlow({ scope: 'get_views' });
    expect(first.pages).toEqual(['login', 'consent']);
    expect((await codeFlow({ scope: 'get_views', browser: first.browser })).pages).toEqual([]);
    expect((await codeFlow({ scope: 'get_views' })).pages).toEqual(['login']);
    // A new permission asks again, for that one only.
    expect((await codeFlow({ scope: 'get_views manage_views', browser: first.browser })).pages).toEqual(['consent']);
  });

  it('Deny redirects with access_denied, state and iss', async () => {
    const a = await authorize({ decision: 'deny', scope: 'manage_groups' }); // not granted before
    expect(a.pages).toEqual(['login', 'consent']);
    expect(a.callback!.searchParams.get('error')).toBe('access_denied');
    expect(a.callback!.searchParams.get('state')).toBe(a.state);
    expect(a.callback!.searchParams.get('iss')).toBe(t.baseUrl);
    const validate = Promise.resolve().then(() => oauth.validateAuthResponse(as, client, a.callback!, a.state));
    expect(await oauthError(validate)).toBe('access_denied');
  });
});

describe('the sign-in and consent pages', () => {
  it('deny framing, are not cached, and let their forms redirect to the client only', async () => {
    const browser = new Browser();
    const url = new URL(
      (
        await authorizationRequest(as, {
          clientId: client.client_id,
          redirectUri: REDIRECT,
          scope: 'get_views',
          state: 'some-state',
        })
      ).url,
    );
    const redirect = await browser.request(url.href);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('x-request-id')).toBeTruthy();
    const page = await browser.request(new URL(redirect.headers.get('location')!, url).href);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:1;");
    const body = await page.text();
    expect(body).toContain('<strong>Test &lt;App&gt;</strong> wants to use your Waypost account');
    expect(body).toContain('<label for="username">Username</label>');
  });

  it('a person signed in at /account is not asked to sign in again', async () => {
    const browser = new Browser();
    const form = formOf(await (await browser.request(`${t.baseUrl}/account`)).text())!;
    const signedIn = await browser.request(`${t.baseUrl}${form.action}`, {
      form: { csrf: form.csrf, username: person.username, password: person.password },
    });
    expect(signedIn.status).toBe(303);
    expect((await codeFlow({ scope: 'write_locations', browser })).pages).toEqual(['consent']);
  });

  it('after signing out on /account, authorizing asks to sign in again', async () => {
    const first = await codeFlow({ scope: 'get_views' });
    const account = await (await first.browser.request(`${t.baseUrl}/account`)).text();
    const signOut = formOf(account.slice(account.indexOf('<form method="post" action="/account/sign-out"')))!;
    expect(
      (await first.browser.request(`${t.baseUrl}${signOut.action}`, { form: { csrf: signOut.csrf } })).status,
    ).toBe(303);
    expect((await codeFlow({ scope: 'get_views', browser: first.browser })).pages).toEqual(['login']);
  });

  it('a wrong password is refused on the page, with the same words for an unknown name', async () => {
    const browser = new Browser();
    const url = new URL(
      (
        await authorizationRequest(as, {
          clientId: client.client_id,
          redirectUri: REDIRECT,
          scope: 'get_views',
          state: 's',
        })
      ).url,
    );
    const interaction = new URL((await browser.request(url.href)).headers.get('location')!, url).href;
    const form = formOf(await (await browser.request(interaction)).text())!;
    const attempt = async (username: string) => {
      const response = await browser.request(new URL(form.action, url).href, {
        form: { csrf: form.csrf, username, password: 'wrong password' },
      });
      return { status: response.status, body: (await response.text()).replace(/value="[^"]*"/g, '') };
    };
    const wrong = await attempt(person.username);
    const unknown = await attempt('nobody_at_all');
    expect(wrong.status).toBe(401);
    expect(wrong).toEqual(unknown);
    expect(wrong.body).toContain('The username or password is wrong.');
  });

  it('the same sign-in limits as /account, one count for both: a burst gets 429 with Retry-After on the page, never a 500', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    const url = new URL(
      (await authorizationRequest(as, { clientId: client.client_id, redirectUri: REDIRECT, scope: 'get_views' })).url,
    );
    const interaction = new URL((await browser.request(url.href)).headers.get('location')!, url).href;
    const form = formOf(await (await browser.request(interaction)).text())!;
    const post = (password: string) =>
      browser.request(new URL(form.action, url).href, {
        form: { csrf: form.csrf, username: user.username, password },
      });
    const burst = await Promise.all(Array.from({ length: 40 }, () => post('wrong password')));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    const refused = burst.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await refused.text();
    expect(page).toMatch(/<p class="error" role="alert">Too many sign-in attempts\. Try again in \d+ minutes?\.<\/p>/);
    expect(page).toContain('<strong>Test &lt;App&gt;</strong> wants to use your Waypost account');
    expect(formOf(page)?.action).toBe(form.action);
    // The right password now: refused here, and on /account (the same count).
    expect((await post(user.password)).status).toBe(429);
    const account = new Browser();
    const accountForm = formOf(await (await account.request(`${t.baseUrl}/account`)).text())!;
    const viaAccount = await account.request(`${t.baseUrl}${accountForm.action}`, {
      form: { csrf: accountForm.csrf, username: user.username, password: user.password },
    });
    expect(viaAccount.status).toBe(429);
  });
});

describe('refusals (RFC 9700)', () => {
  it('a replayed code is invalid_grant and revokes what the first use issued', async () => {
    const a = await authorize();
    const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
    const redeem = () =>
      oauth.authorizationCodeGrantRequest(as, client, publicAuth, params, REDIRECT, a.verifier, insecure);
    const first = await oauth.processAuthorizationCodeResponse(as, client, await redeem());
    expect(await oauthError(redeem().then((r) => oauth.processAuthorizationCodeResponse(as, client, r)))).toBe(
      'invalid_grant',
    );
    expect(await resolve(first.access_token)).toBeUndefined();
    expect(await oauthError(refresh(first.refresh_token!))).toBe('invalid_grant');
  });

  // On SQLite the redemptions serialise and oidc-provider's own replay check answers; on
  // PostgreSQL several may read "not consumed", and the adapter's conditional consume() decides
  // (adapter.test.ts). Either way exactly one gets tokens, every other one invalid_grant, and the
  // replays revoke what the one issued.
  it('concurrent redemptions of one code: exactly one wins, the others are invalid_grant, its tokens die', async () => {
    const a = await authorize({ scope: 'upload_media' });
    const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
    const redeem = () =>
      oauth
        .authorizationCodeGrantRequest(as, client, publicAuth, params, REDIRECT, a.verifier, insecure)
        .then((r) => oauth.processAuthorizationCodeResponse(as, client, r))
        .then(
          (tokens) => ({ tokens }),
          (error: unknown) => {
            const { status, error: code, error_description } = error as oauth.ResponseBodyError;
            return { status, error: code, error_description };
          },
        );
    const results = await Promise.all(Array.from({ length: 5 }, redeem));
    const wins = results.flatMap((r) => ('tokens' in r ? [r.tokens] : []));
    const losses = results.filter((r) => !('tokens' in r));
    expect(wins).toHaveLength(1);
    expect(losses).toEqual(
      Array.from({ length: 4 }, () => ({
        status: 400,
        error: 'invalid_grant',
        error_description: 'grant request is invalid',
      })),
    );
    expect(wins[0]!.scope).toBe('upload_media');
    expect(await resolve(wins[0]!.access_token)).toBeUndefined();
    expect(await oauthError(refresh(wins[0]!.refresh_token!))).toBe('invalid_grant');
  });

  it('a wrong PKCE verifier is invalid_grant', async () => {
    const a = await authorize();
    const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
    const other = oauth.generateRandomCodeVerifier();
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      publicAuth,
      params,
      REDIRECT,
      other,
      insecure,
    );
    expect(await oauthError(oauth.processAuthorizationCodeResponse(as, client, response))).toBe('invalid_grant');
  });

  it('a missing PKCE challenge is invalid_request', async () => {
    const a = await authorize({ extra: { code_challenge: '', code_challenge_method: '' } });
    expect(a.callback!.searchParams.get('error')).toBe('invalid_request');
    expect(a.pages).toEqual([]);
  });

  it('code_challenge_method=plain is invalid_request, with state and iss', async () => {
    const a = await authorize({ extra: { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' } });
    expect(a.callback!.searchParams.get('error')).toBe('invalid_request');
    expect(a.callback!.searchParams.get('state')).toBe(a.state);
    expect(a.callback!.searchParams.get('iss')).toBe(t.baseUrl);
  });

  it('response_type=token is unsupported_response_type', async () => {
    const a = await authorize({ extra: { response_type: 'token' } });
    // The error goes to the fragment, the default response mode of response_type=token.
    expect(new URLSearchParams(a.callback!.hash.slice(1)).get('error')).toBe('unsupported_response_type');
    expect(a.callback!.searchParams.get('code')).toBeNull();
  });

  it('scope openid is invalid_scope (no OpenID Connect here)', async () => {
    const a = await authorize({ scope: 'openid get_views' });
    expect(a.callback!.searchParams.get('error')).toBe('invalid_scope');
  });

  it('grant_type=password is unsupported_grant_type', async () => {
    const response = await oauth.genericTokenEndpointRequest(
      as,
      client,
      publicAuth,
      'password',
      { username: person.username, password: person.password },
      insecure,
    );
    expect(await oauthError(oauth.processGenericTokenEndpointResponse(as, client, response))).toBe(
      'unsupported_grant_type',
    );
  });

  // Each near miss of the registered http://127.0.0.1:1/callback.
  it.each([
    ['trailing slash', 'http://127.0.0.1:1/callback/'],
    ['case of the path', 'http://127.0.0.1:1/Callback'],
    ['case of the scheme and host', 'HTTP://127.0.0.1:1/callback'.replace('127.0.0.1', 'LOCALHOST')],
    ['extra query', 'http://127.0.0.1:1/callback?x=1'],
    ['path suffix', 'http://127.0.0.1:1/callback/evil'],
    ['path prefix only', 'http://127.0.0.1:1/call'],
    ['userinfo', 'http://evil@127.0.0.1:1/callback'],
    ['fragment', 'http://127.0.0.1:1/callback#x'],
    ['other port', 'http://127.0.0.1:2/callback'],
    ['other host', 'http://127.0.0.2:1/callback'],
    ['https', 'https://127.0.0.1:1/callback'],
    ['escaped markup', 'http://127.0.0.1:1/callback?x=<script>alert(1)</script>'],
  ])('a redirect_uri with a %s is refused on a page, never redirected to', async (_name, redirectUri) => {
    const a = await authorize({ redirectUri });
    expect(a.callback).toBeUndefined();
    expect(a.pages).toEqual([]);
    expect(a.stopped!.status).toBe(400);
    expect(a.stopped!.location).toBeNull();
    expect(a.stopped!.body).toContain('invalid_redirect_uri');
    expect(a.stopped!.body).not.toContain('<script>');
  });
});

describe('a browser app on another origin (CORS)', () => {
  const appOrigin = new URL(REDIRECT).origin; // the origin of the client's redirect URI

  it('runs the token exchange and calls the API; other origins are refused; no credentials anywhere', async () => {
    const a = await authorize({ scope: 'get_views' });
    const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
    const preflight = await fetch(as.token_endpoint!, {
      method: 'OPTIONS',
      headers: { origin: appOrigin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(appOrigin);

    const exchange = (origin: string) =>
      fetch(as.token_endpoint!, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code: params.get('code')!,
          redirect_uri: REDIRECT,
          code_verifier: a.verifier,
        }),
      });
    const evil = await exchange('https://evil.example');
    expect(evil.status).toBe(400);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    const ok = await exchange(appOrigin);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    const { access_token: token } = (await ok.json()) as { access_token: string };

    const apiPreflight = await fetch(`${t.baseUrl}/permissions`, {
      method: 'OPTIONS',
      headers: {
        origin: appOrigin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(apiPreflight.status).toBe(204);
    expect(apiPreflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(apiPreflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    const api = await fetch(`${t.baseUrl}/permissions`, {
      headers: { origin: appOrigin, authorization: `Bearer ${token}` },
    });
    expect(api.status).toBe(200);
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
    expect(api.headers.get('access-control-allow-credentials')).toBeNull();
    expect(api.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');

    const page = await fetch(`${t.baseUrl}/account`, { headers: { origin: appOrigin } });
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('revocation from the app origin', async () => {
    const { tokens } = await codeFlow({ scope: 'get_views' });
    const response = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: { origin: appOrigin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: client.client_id, token: tokens.access_token }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(await resolve(tokens.access_token)).toBeUndefined();
  });
});

describe('refresh tokens', () => {
  it('rotate on every use; reusing a spent one revokes the whole grant', async () => {
    const { tokens } = await codeFlow();
    const r1 = await refresh(tokens.refresh_token!);
    expect(r1.refresh_token).toBeTypeOf('string');
    expect(r1.refresh_token).not.toBe(tokens.refresh_token);
    const r2 = await refresh(r1.refresh_token!);
    expect(await resolve(r2.access_token)).toBeDefined();
    // The spent r1 comes back (say, from a thief): invalid_grant, and everything of the grant dies.
    expect(await oauthError(refresh(r1.refresh_token!))).toBe('invalid_grant');
    expect(await oauthError(refresh(r2.refresh_token!))).toBe('invalid_grant');
    expect(await resolve(r2.access_token)).toBeUndefined();
  });
});

describe('DELETE /permissions with real refresh tokens', () => {
  it('the access token, and every token refreshed from its grant, lack the permission', async () => {
    const { tokens } = await codeFlow({ scope: 'get_settings update_settings' });
    const api = (method: string, path: string, token: string) =>
      fetch(`${t.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    expect((await api('DELETE', '/permissions/update_settings', tokens.access_token)).status).toBe(204);
    expect([...(await resolve(tokens.access_token))!.permissions]).toEqual(['get_settings']);
    const r1 = await refresh(tokens.refresh_token!);
    expect(r1.scope).toBe('get_settings');
    expect([...(await resolve(r1.access_token))!.permissions]).toEqual(['get_settings']);
    expect((await refresh(r1.refresh_token!)).scope).toBe('get_settings');
  });
});

describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
  async function introspect(token: string, who: 'rs' | 'public') {
    const response =
      who === 'rs'
        ? await oauth.introspectionRequest(as, rs.client, rs.auth, token, insecure)
        : await oauth.introspectionRequest(as, client, publicAuth, token, insecure);
    expect(response.headers.get('cache-control')).toBe('no-store');
    return oauth.processIntrospectionResponse(as, who === 'rs' ? rs.client : client, response);
  }

  it('introspection answers authenticated (confidential) callers only', async () => {
    const { tokens } = await codeFlow({ scope: 'get_services' });
    expect(await introspect(tokens.access_token, 'rs')).toMatchObject({
      active: true,
      client_id: client.client_id,
      sub: person.id,
      scope: 'get_services',
    });
    expect((await introspect(tokens.access_token, 'public')).active).toBe(false);
    const wrong = oauth.ClientSecretBasic('wrong');
    const bad = await oauth.introspectionRequest(as, rs.client, wrong, tokens.access_token, insecure);
    expect(bad.status).toBe(401);
  });

  it('revoking the access token ends it; unknown tokens get 200 too', async () => {
    const { tokens } = await codeFlow({ scope: 'get_services' });
    const revoke = (token: string) =>
      oauth.revocationRequest(as, client, publicAuth, token, insecure).then(oauth.processRevocationResponse);
    await revoke(tokens.access_token);
    expect(await resolve(tokens.access_token)).toBeUndefined();
    expect((await introspect(tokens.access_token, 'rs')).active).toBe(false);
    await revoke('no-such-token');
  });

  it('revoking the refresh token ends the grant', async () => {
    const { tokens } = await codeFlow({ scope: 'create_post' });
    const hint = { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } };
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, publicAuth, tokens.refresh_token!, hint),
    );
    expect(await oauthError(refresh(tokens.refresh_token!))).toBe('invalid_grant');
    expect(await resolve(tokens.access_token)).toBeUndefined();
  });
});
