// Connecting Mastodon by signing in on its server (docs/api.md "Connecting a service by signing
// in"), over HTTP against a loopback Mastodon-compatible server (test/protocols.ts): Waypost
// registers itself there (POST /api/v1/apps), answers the authorization page with state and
// PKCE, and the web app's callback exchanges the code and stores the token, only for the person
// who started, once, within 15 minutes. The registration is kept and used again while the server
// knows it. An older server (no metadata) gets no PKCE; a person who denies connects nothing;
// every refusal says why beside the field.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signInThroughForm } from '../../test/browser.ts';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startMastodon, type FakeMastodon } from '../../test/protocols.ts';
import { startReceiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { instanceOrigin } from './connectors/mastodon.connect.ts';
import { openSecrets, secretsKey } from './secrets.ts';

const TOKEN = 'token-from-the-server';
let t: TestApp;
let alice: Awaited<ReturnType<typeof createTestUser>>;
let aliceToken: string;
let aliceSession: { cookie: string };
let bobSession: { cookie: string };
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  alice = await createTestUser(t.database);
  const bob = await createTestUser(t.database);
  aliceToken = await tokenFor(t, alice, ['create_service', 'get_services']);
  aliceSession = await signInThroughForm(t.app, alice.username, alice.password);
  bobSession = await signInThroughForm(t.app, bob.username, bob.password);
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});
afterAll(() => t.close());

async function mastodon(options: { metadata?: boolean } = {}): Promise<FakeMastodon> {
  const fake = await startMastodon(TOKEN, options);
  closers.push(fake);
  return fake;
}

const connect = (payload: object, bearer = aliceToken) =>
  t.app.inject({ method: 'POST', url: '/services/connect', headers: { authorization: `Bearer ${bearer}` }, payload });

const callback = (query: string, session = aliceSession) =>
  t.app.inject({ method: 'GET', url: `/app/services/connected?${query}`, headers: { cookie: session.cookie } });

/** The person on the server's authorization page: Authorize or Deny; answers where they are sent back. */
async function decide(authorizeUrl: string, decision: 'allow' | 'deny'): Promise<URL> {
  const page = await fetch(authorizeUrl);
  expect(page.status).toBe(200);
  const fields = Object.fromEntries(new URL(authorizeUrl).searchParams);
  const answer = await fetch(new URL('/oauth/authorize', authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision }).toString(),
    redirect: 'manual',
  });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

const services = async () =>
  (await t.app.inject({ method: 'GET', url: '/services', headers: { authorization: `Bearer ${aliceToken}` } })).json<
    { id: string; type: string; name: string; enabled: boolean; config: Record<string, unknown> }[]
  >();

const storedToken = async (id: string) => {
  const row = await t.database.db.selectFrom('services').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return openSecrets(secretsKey(t.config.secretKey), id, row.secrets).access_token;
};

describe('connecting Mastodon by signing in', () => {
  it('registers Waypost, sends the person to the authorization page, and stores the token it gets back', async () => {
    const fake = await mastodon();
    const started = await connect({ type: 'mastodon', config: { instance_url: fake.url } });
    expect(started.statusCode).toBe(200);
    const { authorize_url: authorizeUrl, expires_at: expiresAt } = started.json<{
      authorize_url: string;
      expires_at: number;
    }>();
    expect(expiresAt).toBeGreaterThan(Date.now() / 1000 + 14 * 60);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() / 1000 + 15 * 60);
    const redirectUri = `${t.config.baseUrl}/app/services/connected`;
    const scopes = 'read:accounts read:statuses write:statuses write:media';
    expect(fake.apps).toEqual([
      { client_name: 'Waypost', redirect_uris: redirectUri, scopes, website: t.config.baseUrl, client_id: 'client-1' },
    ]);
    const asked = new URL(authorizeUrl);
    expect(`${asked.origin}${asked.pathname}`).toBe(`${fake.url}/oauth/authorize`);
    const params = Object.fromEntries(asked.searchParams);
    expect(params).toEqual({
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: redirectUri,
      scope: scopes,
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
      code_challenge_method: 'S256',
    });
    // What waits is sealed: neither the state nor the app's secret is stored readable.
    const waiting = await t.database.db.selectFrom('service_connections').selectAll().execute();
    expect(waiting).toHaveLength(1);
    expect(JSON.stringify(waiting)).not.toContain(params.state);
    expect(JSON.stringify(waiting)).not.toContain('secret-of-client-1');

    const back = await decide(authorizeUrl, 'allow');
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe(params.state);

    // Another person signed in cannot finish it, nor spoil it for the one who started.
    const stranger = await callback(back.searchParams.toString(), bobSession);
    expect(stranger.statusCode).toBe(422);
    expect(stranger.body).toContain('This sign-in is not one you started here, or it was finished already.');
    expect(await countRows(t.database, 'service_connections')).toBe(1);

    const finished = await callback(back.searchParams.toString());
    expect(finished.statusCode).toBe(303);
    const [service] = await services();
    expect(finished.headers.location).toBe(`/app/services?connected=${service!.id}`);
    expect(service).toMatchObject({
      type: 'mastodon',
      name: `@alice@${new URL(fake.url).host}`,
      enabled: true,
      config: { instance_url: fake.url, access_token: '[redacted]' },
    });
    expect(await storedToken(service!.id)).toBe(TOKEN);
    expect(await countRows(t.database, 'service_connections')).toBe(0);
    // The token works: the service's test signs in with it.
    const tested = await t.app.inject({
      method: 'POST',
      url: `/services/${service!.id}/test`,
      headers: { authorization: `Bearer ${aliceToken}` },
    });
    expect(tested.json()).toEqual({ ok: true, status: 200, detail: 'Signed in as @alice.' });
    // The services page says it is connected.
    const page = await t.app.inject({
      method: 'GET',
      url: finished.headers.location,
      headers: { cookie: aliceSession.cookie },
    });
    expect(page.body).toContain('Connected. Put it in a group below');

    // Used once: the same return again connects nothing more.
    const again = await callback(back.searchParams.toString());
    expect(again.statusCode).toBe(422);
    expect(await services()).toHaveLength(1);
    await t.app.inject({
      method: 'DELETE',
      url: `/services/${service!.id}`,
      headers: { authorization: `Bearer ${await tokenFor(t, alice, ['delete_service'])}` },
    });
  });

  it('an older server without metadata gets no PKCE; a person who denies connects nothing', async () => {
    const fake = await mastodon({ metadata: false });
    const first = (await connect({ type: 'mastodon', name: 'Fediverse', config: { instance_url: fake.url } })).json<{
      authorize_url: string;
    }>();
    const params = new URL(first.authorize_url).searchParams;
    expect(params.has('code_challenge')).toBe(false);
    expect(params.get('scope')).toBe('read:accounts read:statuses write:statuses write:media');
    const denied = await callback((await decide(first.authorize_url, 'deny')).searchParams.toString());
    expect(denied.statusCode).toBe(422);
    expect(denied.body).toContain(`You did not allow Waypost on ${new URL(fake.url).host}, so nothing was connected.`);
    expect(await services()).toEqual([]);

    const second = (
      await connect({ type: 'mastodon', name: 'Fediverse', config: { instance_url: fake.url, import: true } })
    ).json<{ authorize_url: string }>();
    const finished = await callback((await decide(second.authorize_url, 'allow')).searchParams.toString());
    expect(finished.statusCode).toBe(303);
    const [service] = await services();
    expect(service).toMatchObject({ name: 'Fediverse', config: { instance_url: fake.url, import: true } });
    expect(await storedToken(service!.id)).toBe(TOKEN);
    await t.database.db.deleteFrom('services').where('id', '=', service!.id).execute();
  });

  it('signing in again gives an existing service the new token', async () => {
    const fake = await mastodon();
    const made = await t.app.inject({
      method: 'POST',
      url: '/services',
      headers: { authorization: `Bearer ${aliceToken}` },
      payload: { type: 'mastodon', name: 'Old token', config: { instance_url: fake.url, access_token: 'revoked' } },
    });
    const { id } = made.json<{ id: string }>();
    const started = (await connect({ type: 'mastodon', service_id: id, config: { instance_url: fake.url } })).json<{
      authorize_url: string;
    }>();
    const finished = await callback((await decide(started.authorize_url, 'allow')).searchParams.toString());
    expect(finished.headers.location).toBe(`/app/services?connected=${id}`);
    expect((await services()).map((s) => [s.id, s.name])).toEqual([[id, 'Old token']]);
    expect(await storedToken(id)).toBe(TOKEN);
    await t.database.db.deleteFrom('services').where('id', '=', id).execute();
  });

  it('connecting to a server again uses the registration kept the first time, while the server still knows it', async () => {
    const fake = await mastodon();
    const start = async (bearer = aliceToken) => {
      const started = await connect({ type: 'mastodon', config: { instance_url: fake.url } }, bearer);
      expect(started.statusCode).toBe(200);
      return started.json<{ authorize_url: string }>().authorize_url;
    };
    const clientOf = (authorizeUrl: string) => new URL(authorizeUrl).searchParams.get('client_id');
    const kept = () =>
      t.database.db
        .selectFrom('service_app_registrations')
        .selectAll()
        .where('server', '=', fake.url)
        .orderBy('client_id')
        .execute();

    expect(clientOf(await start())).toBe('client-1');
    // Kept for the person, the secret sealed.
    const first = await kept();
    expect(first.map((row) => [row.user_id, row.client_id])).toEqual([[alice.id, 'client-1']]);
    expect(JSON.stringify(first)).not.toContain('secret-of-client-1');

    // The second time no app is registered: the server gave the kept one a token of its own,
    // which was revoked at once.
    const second = await start();
    expect(clientOf(second)).toBe('client-1');
    expect(fake.apps.map((app) => app.client_id)).toEqual(['client-1']);
    expect(fake.appTokens).toEqual({ issued: ['app-token-1'], revoked: ['app-token-1'] });
    const finished = await callback((await decide(second, 'allow')).searchParams.toString());
    expect(finished.statusCode).toBe(303);

    // An admin removed the app: Waypost registers anew instead of sending the person to an
    // authorization page that would not know it.
    fake.removedApps.push('client-1');
    const third = await start();
    expect(clientOf(third)).toBe('client-2');
    expect(fake.apps.map((app) => app.client_id)).toEqual(['client-1', 'client-2']);
    expect(fake.appTokens.issued).toEqual(['app-token-1']);
    expect((await kept()).map((row) => [row.user_id, row.client_id])).toEqual([[alice.id, 'client-2']]);
    expect((await decide(third, 'allow')).searchParams.has('code')).toBe(true);

    // Another person's connection does not use hers.
    const carol = await createTestUser(t.database);
    expect(clientOf(await start(await tokenFor(t, carol, ['create_service'])))).toBe('client-3');
    expect((await kept()).map((row) => [row.user_id, row.client_id])).toEqual([
      [alice.id, 'client-2'],
      [carol.id, 'client-3'],
    ]);
    // A secret that no longer opens (as after a change of the server's secret key) is no registration.
    await t.database.db
      .updateTable('service_app_registrations')
      .set({ client_secret: first[0]!.client_secret })
      .where('user_id', '=', carol.id)
      .execute();
    expect(clientOf(await start(await tokenFor(t, carol, ['create_service'])))).toBe('client-4');

    await t.database.db.deleteFrom('service_connections').execute();
    await t.database.db.deleteFrom('services').where('user_id', '=', alice.id).execute();
  });

  it('a sign-in older than 15 minutes connects nothing', async () => {
    const fake = await mastodon();
    const started = (await connect({ type: 'mastodon', config: { instance_url: fake.url } })).json<{
      authorize_url: string;
    }>();
    const back = await decide(started.authorize_url, 'allow');
    await t.database.db
      .updateTable('service_connections')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    const late = await callback(back.searchParams.toString());
    expect(late.statusCode).toBe(422);
    expect(late.body).toContain('The sign-in took longer than 15 minutes. Start again.');
    expect(await services()).toEqual([]);
  });
});

describe('what connecting refuses, in words beside the field', () => {
  it.each([
    [
      { type: 'mastodon', config: { instance_url: 'not a server' } },
      400,
      [{ path: 'body/config/instance_url', message: 'must be the address of your server, like mastodon.social' }],
    ],
    [
      { type: 'mastodon', config: { instance_url: 'https://mastodon.example', access_token: 'x' } },
      400,
      [{ path: 'body/config/access_token', message: 'comes from your server when you sign in there' }],
    ],
    [
      { type: 'mastodon', config: { instance_url: 'https://mastodon.example', interval_minutes: 1 } },
      400,
      [{ path: 'body/config/interval_minutes', message: 'must be at least 5' }],
    ],
    [
      { type: 'webhook', config: { url: 'https://hook.example' } },
      400,
      [{ path: 'body/type', message: 'is not connected by signing in; add it with its settings' }],
    ],
    [
      { type: 'mastodon', config: { instance_url: 'http://10.1.2.3' } },
      422,
      [
        {
          path: 'body/config/instance_url',
          message: 'refused to connect to 10.1.2.3: the address is not allowed (see WAYPOST_OUTBOUND_ALLOW)',
        },
      ],
    ],
  ])('%j is %i', async (body, status, errors) => {
    const response = await connect(body);
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json<{ errors: unknown }>().errors).toEqual(errors);
    expect(await countRows(t.database, 'service_connections')).toBe(0);
  });

  it('a server that is not there, or not Mastodon, is 422 saying so', async () => {
    const closed = await startReceiver();
    await closed.close();
    const gone = await connect({ type: 'mastodon', config: { instance_url: closed.url } });
    expect(gone.statusCode).toBe(422);
    expect(gone.json()).toMatchObject({ code: 'service_connect_failed' });
    expect(gone.json<{ errors: { path: string; message: string }[] }>().errors).toEqual([
      {
        path: 'body/config/instance_url',
        message: expect.stringMatching(
          /^Waypost could not reach http:\/\/127\.0\.0\.1:\d+ \(.+\)\. Check the address\.$/,
        ) as unknown,
      },
    ]);
    const blog = await startReceiver();
    closers.push(blog);
    blog.answer = (_request, response) => response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>No</h1>');
    const other = await connect({ type: 'mastodon', config: { instance_url: blog.url } });
    expect(other.statusCode).toBe(422);
    expect(other.json<{ errors: unknown }>().errors).toEqual([
      {
        path: 'body/config/instance_url',
        message: `${blog.url} did not let Waypost register as an app (it answered 404). Is it a Mastodon server?`,
      },
    ]);
  });

  it("another person's service to sign in again for is 404; without create_service 401", async () => {
    const bob = await createTestUser(t.database);
    const bobs = await tokenFor(t, bob, ['create_service']);
    const hers = await t.app.inject({
      method: 'POST',
      url: '/services',
      headers: { authorization: `Bearer ${bobs}` },
      payload: { type: 'mastodon', name: 'Bob', config: { instance_url: 'https://m.example', access_token: 'b' } },
    });
    const foreign = await connect({
      type: 'mastodon',
      service_id: hers.json<{ id: string }>().id,
      config: { instance_url: 'https://m.example' },
    });
    expect(foreign.statusCode).toBe(404);
    const reader = await tokenFor(t, alice, ['get_services']);
    expect(
      (await connect({ type: 'mastodon', config: { instance_url: 'https://m.example' } }, reader)).statusCode,
    ).toBe(401);
  });

  it('a return without its state, or with one nobody started, connects nothing', async () => {
    expect((await callback('code=abc')).body).toContain('without the state Waypost gave it');
    const unknown = await callback('code=abc&state=made-up');
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('This sign-in is not one you started here');
  });
});

describe('the server a person types', () => {
  it.each([
    ['mastodon.social', 'https://mastodon.social'],
    ['https://mastodon.social/', 'https://mastodon.social'],
    ['  @alice@mastodon.social ', 'https://mastodon.social'],
    ['alice@fosstodon.org', 'https://fosstodon.org'],
    ['http://127.0.0.1:3000/about', 'http://127.0.0.1:3000'],
    ['localhost:3000', 'https://localhost:3000'],
    ['mastodon', undefined],
    ['not a server', undefined],
    ['https://user:pw@mastodon.social', undefined],
  ])('%j is %j', (input, origin) => {
    expect(instanceOrigin(input)).toBe(origin);
  });
});
