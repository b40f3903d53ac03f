// POST /services/<id>/test: a signed test event for a webhook, a credentials check for
// Mastodon, 400 for a type without a test, 404 for another person's service or none. The
// target's failure is reported in a 200, never as a 5xx of ours. (Bluesky: bluesky.test.ts.)
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startMastodon, startMicropub } from '../../test/protocols.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner } from '../job-runner.ts';

const anIsoTime: unknown = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
let t: TestApp;
let token: string;
let strangerToken: string;
let readOnlyToken: string;
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  const alice = await createTestUser(t.database);
  token = await tokenFor(t, alice, ['create_service']);
  readOnlyToken = await tokenFor(t, alice, ['get_services']);
  strangerToken = await tokenFor(t, await createTestUser(t.database), ['create_service']);
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});
afterAll(() => t.close());

async function service(type: string, config: Record<string, string>): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/services',
    headers: { authorization: `Bearer ${token}` },
    payload: { type, name: type, config },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

function test(id: string, bearer = token) {
  return t.app.inject({ method: 'POST', url: `/services/${id}/test`, headers: { authorization: `Bearer ${bearer}` } });
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  closers.push(started);
  return started;
}

describe('webhook', () => {
  it('sends a test event signed per Standard Webhooks and reports the answer', async () => {
    const target = await receiver();
    const verified: unknown[] = [];
    target.answer = (request, response) => {
      verified.push(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>));
      response.writeHead(200, { 'content-type': 'text/plain' }).end('  got   it\n thanks ');
    };
    const id = await service('webhook', { url: `${target.url}/hook`, secret: SECRET });

    const response = await test(id);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true, status: 200, detail: 'got it thanks' });
    expect(verified).toEqual([
      {
        type: 'test',
        timestamp: anIsoTime,
        data: { service_id: id, message: 'A test event from Waypost: the URL and the secret work.' },
      },
    ]);
    expect(target.received[0]?.headers['webhook-id']).toMatch(/^[0-9A-Z]{26}$/);
  });

  it("a receiver's 500 is a 200 here, with its status and the start of its answer", async () => {
    const target = await receiver();
    target.answer = (_request, response) => response.writeHead(500).end(`boom ${'x'.repeat(300)}`);
    const id = await service('webhook', { url: `${target.url}/hook`, secret: SECRET });

    const response = await test(id);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: false, status: 500, detail: `boom ${'x'.repeat(195)}` });
  });

  it('a receiver that cannot be reached is a 200 with status null and the reason', async () => {
    const target = await receiver();
    const url = `${target.url}/hook`;
    await target.close();
    const id = await service('webhook', { url, secret: SECRET });

    const response = await test(id);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      ok: false,
      status: null,
      detail: 'fetch failed: connect ECONNREFUSED ' + url.slice(7, -5),
    });
  });

  it('a private address the operator does not allow is refused before any connection', async () => {
    const strict = await buildTestApp();
    try {
      const owner = await createTestUser(strict.database);
      const ownerToken = await tokenFor(strict, owner, ['create_service']);
      const created = await strict.app.inject({
        method: 'POST',
        url: '/services',
        headers: { authorization: `Bearer ${ownerToken}` },
        payload: { type: 'webhook', name: 'w', config: { url: 'http://127.0.0.1:8080/hook', secret: SECRET } },
      });
      const response = await strict.app.inject({
        method: 'POST',
        url: `/services/${created.json<{ id: string }>().id}/test`,
        headers: { authorization: `Bearer ${ownerToken}` },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        ok: false,
        status: null,
        detail: 'refused to connect to 127.0.0.1: the address is not allowed (see WAYPOST_OUTBOUND_ALLOW)',
      });
    } finally {
      await strict.close();
    }
  });
});

describe('a refused name does not tell what it resolves to', () => {
  // An internal name (here `localhost`) probed through a service: the test answer, the
  // delivery's and the service's last_error say the address is not allowed, never the address.
  const REFUSED = 'refused to connect to localhost: the address is not allowed (see WAYPOST_OUTBOUND_ALLOW)';
  let strict: TestApp;
  let bearer: string;
  beforeAll(async () => {
    strict = await buildTestApp();
    const owner = await createTestUser(strict.database);
    bearer = await tokenFor(strict, owner, ['create_service', 'get_services', 'manage_groups', 'create_post']);
  });
  afterAll(() => strict.close());
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    strict.app.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

  it('not in the test answer, nor in the last_error of a delivery and of the service', async () => {
    const created = await call('POST', '/services', {
      type: 'webhook',
      name: 'inside',
      config: { url: 'http://localhost:8080/hook', secret: SECRET },
    });
    const serviceId = created.json<{ id: string }>().id;
    const tested = await call('POST', `/services/${serviceId}/test`);
    expect(tested.statusCode).toBe(200);
    expect(tested.json()).toEqual({ ok: false, status: null, detail: REFUSED });

    const group = await call('POST', '/services/groups', { name: 'inside', service_ids: [serviceId] });
    const post = await call('POST', '/posts', { text: 'probe', groups: [group.json<{ id: string }>().id] });
    expect(post.statusCode).toBe(202);
    const runner = createJobRunner({ config: strict.config, database: strict.database });
    try {
      expect(await runner.worker.runOnce()).toBe(1);
    } finally {
      await runner.close();
    }
    const read = await call('GET', `/posts/id/${post.json<{ id: string }>().id}`);
    expect(read.json<{ deliveries: { last_error: string }[] }>().deliveries.map((d) => d.last_error)).toEqual([
      REFUSED,
    ]);
    const shown = await call('GET', `/services/${serviceId}`);
    expect(shown.json<{ status: string; last_error: string }[]>().map((one) => [one.status, one.last_error])).toEqual([
      ['error', REFUSED],
    ]);
  });
});

describe('mastodon', () => {
  it('checks the token with verify_credentials', async () => {
    const mastodon = await startMastodon('good-token');
    closers.push(mastodon);
    const good = await service('mastodon', { instance_url: mastodon.url, access_token: 'good-token' });
    const bad = await service('mastodon', { instance_url: mastodon.url, access_token: 'bad-token' });

    expect((await test(good)).json()).toEqual({ ok: true, status: 200, detail: 'Signed in as @alice.' });
    const refused = await test(bad);
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toEqual({ ok: false, status: 401, detail: '{"error":"The access token is invalid"}' });
    expect(mastodon.receiver.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/accounts/verify_credentials',
      'GET /api/v1/accounts/verify_credentials',
    ]);
  });
});

describe('micropub', () => {
  it('checks the token with q=config', async () => {
    const site = await startMicropub('site-token', { mediaEndpoint: true });
    closers.push(site);
    const good = await service('micropub', { endpoint: site.endpoint, access_token: 'site-token' });
    const bad = await service('micropub', { endpoint: site.endpoint, access_token: 'other' });

    expect((await test(good)).json()).toEqual({
      ok: true,
      status: 200,
      detail: `{"media-endpoint":"${site.receiver.url}/media"}`,
    });
    expect((await test(bad)).json()).toEqual({ ok: false, status: 401, detail: '{"error":"unauthorized"}' });
  });
});

describe('refusals', () => {
  it('a type with nothing to test is 400', async () => {
    const id = await service('owntracks', {});
    const response = await test(id);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'invalid_request',
      detail: 'A owntracks service has nothing to test: it reaches no outside server.',
    });
  });

  it("another person's service answers exactly like a missing one (404)", async () => {
    const target = await receiver();
    const id = await service('webhook', { url: `${target.url}/hook`, secret: SECRET });
    const foreign = await test(id, strangerToken);
    const missing = await test('01KAB0000000000000000000ZZ', strangerToken);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toBe(missing.body);
    expect(target.received).toEqual([]);
  });

  it('needs the permission that connects services', async () => {
    const target = await receiver();
    const id = await service('webhook', { url: `${target.url}/hook`, secret: SECRET });
    const response = await test(id, readOnlyToken);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
    expect(target.received).toEqual([]);
  });
});
