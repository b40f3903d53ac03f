// Delivering posts: each connector against a small real server on loopback that speaks its
// protocol, and the faults (down then up, always 500, 401, a worker killed mid-delivery).
// Time is a variable the tests move: no test waits for a backoff.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../../test/cli.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../job-runner.ts';
import { newId } from '../lib/ids.ts';
import type { OutgoingPost } from './connectors/connector.ts';
import { deliveriesForPosts, enqueueDeliveries } from './deliveries.logic.ts';
import type { Delivery } from '../posts/posts.schemas.ts';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const MAX_ATTEMPTS = 3;
let t: TestApp;
let alice: { id: string; username: string };
let token: string;
let clock = Date.now();
const receivers: Receiver[] = [];
const runners: JobRunner[] = [];

beforeAll(async () => {
  t = await buildTestApp({
    env: { WAYPOST_OUTBOUND_ALLOW: 'loopback', WAYPOST_DELIVERY_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
  });
  alice = await createTestUser(t.database);
  token = await tokenFor(t, alice, ['get_services', 'create_service', 'delete_service', 'manage_groups']);
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => t.close());

async function receiver(port = 0): Promise<Receiver> {
  const started = await startReceiver(port);
  receivers.push(started);
  return started;
}

function runner(): JobRunner {
  const created = createJobRunner({ config: t.config, database: t.database, now: () => clock, random: () => 0.5 });
  runners.push(created);
  return created;
}

/** Creates a service through the API and a group holding it; returns both ids. */
async function serviceInGroup(type: string, config: Record<string, string>) {
  const auth = { authorization: `Bearer ${token}` };
  const service = await t.app.inject({
    method: 'POST',
    url: '/services',
    headers: auth,
    payload: { type, name: type, config },
  });
  expect(service.statusCode).toBe(201);
  const serviceId = service.json<{ id: string }>().id;
  const group = await t.app.inject({
    method: 'POST',
    url: '/services/groups',
    headers: auth,
    payload: { name: type, service_ids: [serviceId] },
  });
  return { serviceId, groupId: group.json<{ id: string }>().id };
}

/** What POST /posts does for delivery: the post's deliveries and jobs in one transaction. */
async function queuePost(groupIds: string[], post: Partial<OutgoingPost> = {}): Promise<OutgoingPost> {
  const id = newId();
  const outgoing: OutgoingPost = {
    id,
    username: alice.username,
    text: 'Hello from Waypost',
    scope: 'public',
    time: 1_700_000_000.5,
    created_at: 1_700_000_001,
    url: `http://waypost.test/posts/id/${id}`,
    media_ids: [],
    location: null,
    ...post,
  };
  await t.database.db
    .transaction()
    .execute((trx) =>
      enqueueDeliveries(trx, { userId: alice.id, post: outgoing, groupIds, maxAttempts: MAX_ATTEMPTS, now: clock }),
    );
  return outgoing;
}

async function deliveryOf(postId: string): Promise<Delivery> {
  const [delivery] = (await deliveriesForPosts(t.database.db, alice.id, [postId])).get(postId) ?? [];
  if (!delivery) throw new Error('no delivery');
  return delivery;
}

/** What a Mastodon target received at POST /api/v1/statuses (the connector also asks GET /api/v2/instance). */
function statuses(target: Receiver) {
  return target.received.filter((r) => r.method === 'POST' && r.path === '/api/v1/statuses');
}

/** Moves the clock past any backoff (the configured maximum). */
function later() {
  clock += t.config.retryMaxSeconds * 1000 + 1;
}

describe('connectors', () => {
  it('webhook: a signed POST that standardwebhooks verifies; the post as data', async () => {
    const target = await receiver();
    const verified: unknown[] = [];
    target.answer = (request, response) => {
      verified.push(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>));
      response.writeHead(204).end();
    };
    const { serviceId, groupId } = await serviceInGroup('webhook', {
      url: `${target.url}/hooks/in?x=1`,
      secret: SECRET,
    });
    const post = await queuePost([groupId], { location: { lat: 52.5, lon: 13.4 } });

    expect(await runner().worker.runOnce()).toBe(1);

    expect(target.received).toHaveLength(1);
    const [request] = target.received;
    expect(request).toMatchObject({ method: 'POST', path: '/hooks/in?x=1' });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(verified).toEqual([
      { type: 'post.created', timestamp: new Date(clock).toISOString(), data: { ...post, media: [] } },
    ]);
    expect(await deliveryOf(post.id)).toEqual({
      service_id: serviceId,
      status: 'delivered',
      attempts: 1,
      remote_url: null,
      remote_id: null,
      last_error: null,
      edit_status: null,
      edit_error: null,
      updated_at: clock / 1000,
    });
  });

  it('mastodon: POST /api/v1/statuses with the bearer token, Idempotency-Key and visibility; records the URL', async () => {
    const target = await receiver();
    target.answer = (request, response) => {
      const ok =
        request.method === 'POST' &&
        request.path === '/api/v1/statuses' &&
        request.headers.authorization === 'Bearer masto-token' &&
        request.headers['content-type'] === 'application/json' &&
        typeof request.headers['idempotency-key'] === 'string';
      if (!ok) return response.writeHead(400).end('{"error":"bad request"}');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ id: '109', uri: `${target.url}/users/alice/statuses/109`, url: `${target.url}/@alice/109` }),
      );
    };
    const { groupId } = await serviceInGroup('mastodon', { instance_url: target.url, access_token: 'masto-token' });
    const shared = await queuePost([groupId], { text: 'For everyone' });
    const secret = await queuePost([groupId], { text: 'For followers', scope: 'private' });

    expect(await runner().worker.runOnce()).toBe(2);

    const bodies = statuses(target).map((r) => JSON.parse(r.body) as unknown);
    expect(bodies).toEqual(
      expect.arrayContaining([
        { status: 'For everyone', visibility: 'public' },
        { status: 'For followers', visibility: 'private' },
      ]),
    );
    expect(await deliveryOf(shared.id)).toMatchObject({ status: 'delivered', remote_url: `${target.url}/@alice/109` });
    expect(await deliveryOf(secret.id)).toMatchObject({ status: 'delivered' });
  });

  it('micropub: form-encoded h=entry with the bearer token; records Location', async () => {
    const target = await receiver();
    target.answer = (request, response) => {
      const form = new URLSearchParams(request.body);
      const ok =
        request.method === 'POST' &&
        request.path === '/micropub' &&
        request.headers.authorization === 'Bearer mp-token' &&
        request.headers['content-type'] === 'application/x-www-form-urlencoded' &&
        form.get('h') === 'entry' &&
        form.get('content') !== null;
      if (!ok) return response.writeHead(400).end('{"error":"invalid_request"}');
      response.writeHead(201, { location: '/2026/11/hello' }).end();
    };
    const { groupId } = await serviceInGroup('micropub', {
      endpoint: `${target.url}/micropub`,
      access_token: 'mp-token',
    });
    const post = await queuePost([groupId], { scope: 'private', location: { lat: 1.5, lon: 2.25 } });

    expect(await runner().worker.runOnce()).toBe(1);

    expect(Object.fromEntries(new URLSearchParams(target.received[0]?.body))).toEqual({
      h: 'entry',
      content: 'Hello from Waypost',
      published: '2023-11-14T22:13:20.500Z',
      visibility: 'private',
      location: 'geo:1.5,2.25',
    });
    expect(await deliveryOf(post.id)).toMatchObject({ status: 'delivered', remote_url: `${target.url}/2026/11/hello` });
  });
});

describe('faults', () => {
  it('target down, then up: delivered on a retry, with the same webhook-id', async () => {
    const probe = await receiver();
    const port = probe.port;
    await probe.close();
    receivers.splice(receivers.indexOf(probe), 1);
    const { groupId } = await serviceInGroup('webhook', { url: `http://127.0.0.1:${port}/in`, secret: SECRET });
    const post = await queuePost([groupId]);
    const { worker } = runner();

    expect(await worker.runOnce()).toBe(1);
    const down = await deliveryOf(post.id);
    expect(down).toMatchObject({ status: 'pending', attempts: 1 });
    expect(down.last_error).toMatch(/fetch failed|ECONNREFUSED/);
    expect(await worker.runOnce()).toBe(0); // not due yet: the backoff is on the clock

    const target = await receiver(port);
    target.answer = (_request, response) => response.writeHead(503).end('busy');
    later();
    expect(await worker.runOnce()).toBe(1);
    expect(await deliveryOf(post.id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      last_error: `HTTP 503 from http://127.0.0.1:${port}: busy`,
    });

    target.answer = (_request, response) => response.writeHead(200).end();
    later();
    expect(await worker.runOnce()).toBe(1);
    expect(await deliveryOf(post.id)).toMatchObject({ status: 'delivered', attempts: 3, last_error: null });
    const ids = target.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(1);
  });

  it('target always 500: failed after the limit, with the error; the service shows it', async () => {
    const target = await receiver();
    target.answer = (_request, response) => response.writeHead(500).end('Internal Server Error');
    const { serviceId, groupId } = await serviceInGroup('webhook', { url: target.url, secret: SECRET });
    const post = await queuePost([groupId]);
    const { worker } = runner();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      expect(await worker.runOnce()).toBe(1);
      later();
    }
    expect(await worker.runOnce()).toBe(0);
    expect(target.received).toHaveLength(MAX_ATTEMPTS);
    const error = `HTTP 500 from ${target.url}: Internal Server Error`;
    expect(await deliveryOf(post.id)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, last_error: error });
    const service = await t.app.inject({
      url: `/services/${serviceId}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(service.json()).toEqual([expect.objectContaining({ status: 'error', last_error: error })]);
  });

  it('target 401: failed at once, not retried', async () => {
    const target = await receiver();
    target.answer = (_request, response) => response.writeHead(401).end('{"error":"The access token is invalid"}');
    const { groupId } = await serviceInGroup('mastodon', { instance_url: target.url, access_token: 'revoked' });
    const post = await queuePost([groupId]);
    const { worker } = runner();
    expect(await worker.runOnce()).toBe(1);
    later();
    expect(await worker.runOnce()).toBe(0);
    expect(statuses(target)).toHaveLength(1);
    expect(await deliveryOf(post.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: `HTTP 401 from ${target.url}: {"error":"The access token is invalid"}`,
    });
  });

  it('a retry after a lost answer carries the same Idempotency-Key (mastodon)', async () => {
    const target = await receiver();
    target.answer = (_request, response) => response.writeHead(502).end();
    const { groupId } = await serviceInGroup('mastodon', { instance_url: target.url, access_token: 'tok' });
    const post = await queuePost([groupId]);
    const { worker } = runner();
    await worker.runOnce();
    target.answer = (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1","url":"https://m.example/@a/1"}');
    later();
    await worker.runOnce();
    expect(await deliveryOf(post.id)).toMatchObject({
      status: 'delivered',
      attempts: 2,
      remote_url: 'https://m.example/@a/1',
    });
    const keys = statuses(target).map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('a worker killed mid-delivery: the job is taken up after the lease, with the same webhook-id', async () => {
    const target = await receiver();
    // The first request is never answered: the worker that sent it dies waiting.
    target.answer = (_request, response) => {
      if (target.received.length > 1) response.writeHead(200).end();
    };
    const { groupId } = await serviceInGroup('webhook', { url: target.url, secret: SECRET });
    clock = Date.now(); // the other process runs on the real clock
    const post = await queuePost([groupId]);

    const env = {
      ...cliEnv({ dataDir: t.config.dataDir, databaseUrl: t.databaseUrl }),
      WAYPOST_OUTBOUND_ALLOW: 'loopback',
      WAYPOST_LOG_LEVEL: 'silent',
    };
    const { DATABASE_URL: _ignored, ...parentEnv } = process.env;
    const child = spawn(process.execPath, [fileURLToPath(new URL('../cli.ts', import.meta.url)), 'worker'], {
      env: { ...parentEnv, ...env },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await target.seen(1);
    child.kill('SIGKILL');
    await exited;

    const stuck = await t.database.db
      .selectFrom('jobs')
      .selectAll()
      .where('ref', 'is not', null)
      .where('status', '=', 'running')
      .execute();
    expect(stuck).toHaveLength(1);
    // The worker process also scheduled (and may have started) housekeeping (docs/housekeeping.md);
    // only the delivery is followed here.
    await t.database.db.deleteFrom('jobs').where('kind', '=', 'housekeeping').execute();
    const { worker } = runner();
    clock = Date.now();
    expect(await worker.runOnce()).toBe(0); // the dead worker's lease still holds
    clock = Date.now() + t.config.jobLeaseSeconds * 1000 + 1;
    expect(await worker.runOnce()).toBe(1);

    expect(await deliveryOf(post.id)).toMatchObject({ status: 'delivered', attempts: 2 });
    const ids = target.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });
});
