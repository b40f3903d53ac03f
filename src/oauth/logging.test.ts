// The logs of a whole OAuth session hold no secret: no token, code, verifier, password or
// cookie value, while oidc-provider's own errors do reach them (with the request id).
import { Writable } from 'node:stream';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authorizationRequest, Browser, runFlow } from '../../test/browser.ts';
import { createTestDatabase, createTestUser, testConfig, type TestDatabase } from '../../test/helpers.ts';
import { freePort } from '../../test/server.ts';
import { buildApp } from '../app.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createLogger } from '../logger.ts';

const lines: string[] = [];
let test: TestDatabase;
let app: Awaited<ReturnType<typeof buildApp>>;
let baseUrl: string;

beforeAll(async () => {
  test = await createTestDatabase();
  await migrateToLatest(test.database);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const config = testConfig(test.dataDir, { WAYPOST_BASE_URL: baseUrl });
  // The production logger (its redaction and serializers), writing into memory.
  const stream = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  app = await buildApp({
    config,
    database: test.database,
    logger: createLogger({ logLevel: 'info', logFormat: 'json' }, stream),
  });
  await app.listen({ host: '127.0.0.1', port });
});
afterAll(async () => {
  await app.close();
  await test.database.close();
  await test.drop();
});

it('no secret reaches the logs; oidc-provider errors do', async () => {
  const insecure = { [oauth.allowInsecureRequests]: true } as const;
  const person = await createTestUser(test.database, { username: 'logged', password: 'log me not please' });
  const issuer = new URL(baseUrl);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  const redirectUri = 'http://127.0.0.1:1/callback';
  const registration = (await (
    await fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    })
  ).json()) as { client_id: string };
  const client: oauth.Client = { client_id: registration.client_id, token_endpoint_auth_method: 'none' };

  const { url, verifier, state } = await authorizationRequest(as, {
    clientId: client.client_id,
    redirectUri,
    scope: 'create_post',
  });
  const browser = new Browser();
  const flow = await runFlow(browser, url, { redirectUri, username: person.username, password: person.password });
  const params = oauth.validateAuthResponse(as, client, flow.callback!, state);
  const exchange = () =>
    oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange());
  await exchange(); // a replay: oidc-provider reports grant.error
  await fetch(`${baseUrl}/permissions`, { headers: { authorization: `Bearer ${tokens.access_token}` } });

  const text = lines.join('');
  expect(text).toContain('"msg":"grant.error"');
  expect(text).toContain('authorization code already consumed');
  const secrets = [tokens.access_token, tokens.refresh_token!, params.get('code')!, verifier, person.password];
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/wp_session=[A-Za-z0-9_-]{20}/);
  expect(text).not.toMatch(/wp_csrf=[A-Za-z0-9_-]{20}/);
});
