// POST /posts/id/<id>/deliveries/<service_id>/retry: a failed delivery goes back to pending and
// reaches the receiver again with the same webhook-id; every refusal with its exact answer.
// Time is a variable the tests move: no test waits for a backoff.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../job-runner.ts';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const MAX_ATTEMPTS = 2;
let t: TestApp;
let alice: { id: string; username: string };
let bob: { id: string; username: string };
let aliceToken: string;
let bobToken: string;
let clock = Date.now();
let target: Receiver;
const runners: JobRunner[] = [];

beforeAll(async () => {
  t = await buildTestApp({
    env: { WAYPOST_OUTBOUND_ALLOW: 'loopback', WAYPOST_DELIVERY_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
  });
  target = await startReceiver();
  alice = await createTestUser(t.database);
  bob = await createTestUser(t.database);
  const all = ['create_post', 'get_services', 'create_service', 'delete_service', 'manage_groups'] as const;
  aliceToken = await tokenFor(t, alice, [...all]);
  bobToken = await tokenFor(t, bob, [...all]);
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
});
afterAll(async () => {
  await target.close();
  await t.close();
});

function runner(): JobRunner {
  const created = createJobRunner({ config: t.config, database: t.database, now: () => clock, random: () => 0.5 });
  runners.push(created);
  return created;
}

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: unknown) {
  return t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

/** A webhook service in a group, and a post to it; returns the ids. */
async function postToWebhook(token = aliceToken) {
  const service = await call('POST', '/services', token, {
    type: 'webhook',
    name: 'hook',
    config: { url: `${target.url}/in`, secret: SECRET },
  });
  const serviceId = service.json<{ id: string }>().id;
  const group = await call('POST', '/services/groups', token, { name: 'g', service_ids: [serviceId] });
  const posted = await call('POST', '/posts', token, {
    text: 'Hello again',
    groups: [group.json<{ id: string }>().id],
  });
  expect(posted.statusCode).toBe(202);
  return { serviceId, postId: posted.json<{ id: string }>().id };
}

async function deliveryOf(postId: string, token = aliceToken) {
  const post = await call('GET', `/posts/id/${postId}`, token);
  return post.json<{ deliveries: Record<string, unknown>[] }>().deliveries[0];
}

const retry = (postId: string, serviceId: string, token = aliceToken) =>
  call('POST', `/posts/id/${postId}/deliveries/${serviceId}/retry`, token);

/** Runs the worker until the queue is empty, moving the clock past each backoff. */
async function drain() {
  clock = Math.max(clock, Date.now());
  const { worker } = runner();
  for (let round = 0; round < 10; round += 1) {
    if ((await worker.runOnce()) === 0) return;
    clock += t.config.retryMaxSeconds * 1000 + 1;
  }
}

describe('retry', () => {
  it('a failed delivery goes back to pending and reaches the receiver with the same webhook-id', async () => {
    target.received.length = 0;
    target.answer = (_request, response) => response.writeHead(500).end('down');
    const { serviceId, postId } = await postToWebhook();
    await drain();
    expect(await deliveryOf(postId)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
    expect(target.received).toHaveLength(MAX_ATTEMPTS);

    const answer = await retry(postId, serviceId);
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toMatchObject({ service_id: serviceId, status: 'pending', attempts: MAX_ATTEMPTS });
    expect(await deliveryOf(postId)).toMatchObject({ status: 'pending' });

    target.answer = (_request, response) => response.writeHead(204).end();
    await drain();
    expect(await deliveryOf(postId)).toMatchObject({
      status: 'delivered',
      attempts: MAX_ATTEMPTS + 1,
      last_error: null,
    });
    expect(target.received).toHaveLength(MAX_ATTEMPTS + 1);
    const ids = target.received.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    // The same post, as the first attempt sent it.
    const bodies = target.received.map((request) => JSON.parse(request.body) as { data: unknown });
    expect(bodies.at(-1)?.data).toEqual(bodies[0]?.data);
  });

  it('409 while pending and once delivered, with nothing queued', async () => {
    target.received.length = 0;
    target.answer = (_request, response) => response.writeHead(204).end();
    const { serviceId, postId } = await postToWebhook();
    const pending = await retry(postId, serviceId);
    expect(pending.statusCode).toBe(409);
    expect(pending.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(pending.json()).toEqual({
      type: 'urn:waypost:problem:delivery_not_retryable',
      title: 'Conflict',
      status: 409,
      detail: 'The delivery is pending: only a failed or cancelled delivery can be tried again.',
      code: 'delivery_not_retryable',
    });
    await drain();
    const delivered = await retry(postId, serviceId);
    expect(delivered.statusCode).toBe(409);
    expect(delivered.json<{ detail: string }>().detail).toBe(
      'The delivery is delivered: only a failed or cancelled delivery can be tried again.',
    );
    await drain();
    expect(target.received).toHaveLength(1);
  });

  it('404 for a missing post, a service with no delivery of it, and another person', async () => {
    target.answer = (_request, response) => response.writeHead(500).end();
    const { serviceId, postId } = await postToWebhook();
    await drain();
    const other = await call('POST', '/services', aliceToken, {
      type: 'webhook',
      name: 'unused',
      config: { url: `${target.url}/unused`, secret: SECRET },
    });
    const missing = await retry('01JZZZZZZZZZZZZZZZZZZZZZZZ', serviceId);
    const noDelivery = await retry(postId, other.json<{ id: string }>().id);
    const foreign = await retry(postId, serviceId, bobToken);
    for (const answer of [missing, noDelivery, foreign]) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ code: 'not_found', status: 404 });
    }
    expect(foreign.body).toBe(missing.body);
    expect(await deliveryOf(postId)).toMatchObject({ status: 'failed' });
  });

  it('a cancelled delivery (its service deleted) is 404: the service is gone', async () => {
    target.answer = (_request, response) => response.writeHead(204).end();
    const { serviceId, postId } = await postToWebhook();
    expect((await call('DELETE', `/services/${serviceId}`, aliceToken)).statusCode).toBe(204);
    expect(await deliveryOf(postId)).toMatchObject({ status: 'cancelled' });
    const answer = await retry(postId, serviceId);
    expect(answer.statusCode).toBe(404);
    expect(answer.json<{ detail: string }>().detail).toBe('No such service.');
  });

  it('needs create_post', async () => {
    const { serviceId, postId } = await postToWebhook();
    const reader = await tokenFor(t, alice, ['get_services']);
    const answer = await retry(postId, serviceId, reader);
    expect(answer.statusCode).toBe(401);
    expect(answer.headers['www-authenticate']).toContain('scope="create_post"');
  });
});
