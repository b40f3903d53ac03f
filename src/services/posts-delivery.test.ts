// POST /posts as the services see it: groups expanded to deliveries in the post's transaction,
// every 400 case docs/api.md lists, 401, Idempotency-Key, and the owner's view of deliveries.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner } from '../job-runner.ts';
import { insertKey } from '../core/idempotency.repo.ts';

const SECRET = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
let t: TestApp;
let receiver: Receiver;
let alice: { id: string; username: string };
let bob: { id: string; username: string };
let poster: string;
let manager: string;
let bobsManager: string;
const services: string[] = [];
let groupA: string;
let groupB: string;
let bobsGroup: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  receiver = await startReceiver();
  alice = await createTestUser(t.database);
  bob = await createTestUser(t.database);
  poster = await tokenFor(t, alice, ['create_post', 'get_private_scope']);
  manager = await tokenFor(t, alice, ['create_service', 'manage_groups']);
  bobsManager = await tokenFor(t, bob, ['create_service', 'manage_groups']);
  for (const name of ['one', 'two', 'three']) {
    const created = await t.app.inject({
      method: 'POST',
      url: '/services',
      headers: { authorization: `Bearer ${manager}` },
      payload: { type: 'webhook', name, config: { url: `${receiver.url}/${name}`, secret: SECRET } },
    });
    services.push(created.json<{ id: string }>().id);
  }
  const group = async (token: string, serviceIds: string[]) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/services/groups',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'g', service_ids: serviceIds },
      })
    ).json<{ id: string }>().id;
  // Two groups sharing a service: a post to both reaches it once.
  groupA = await group(manager, [services[0] ?? '', services[1] ?? '']);
  groupB = await group(manager, [services[1] ?? '', services[2] ?? '']);
  bobsGroup = await group(bobsManager, []);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

function post(body: unknown, headers: Record<string, string> = {}, token = poster) {
  return t.app.inject({
    method: 'POST',
    url: '/posts',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

interface PostObject {
  id: string;
  deliveries?: { service_id: string; status: string; attempts: number; remote_url: string | null }[];
}

describe('POST /posts delivery', () => {
  it('202, Location, and one pending delivery per distinct service across the groups', async () => {
    const response = await post({ text: '  Hello, services  ', groups: [groupA, groupB] });
    expect(response.statusCode).toBe(202);
    const body = response.json<PostObject>();
    expect(response.headers.location).toBe(`/posts/id/${body.id}`);
    expect(body).toMatchObject({ text: 'Hello, services', username: alice.username });
    expect(body.deliveries?.map((d) => d.service_id).sort()).toEqual([...services].sort());
    expect(body.deliveries?.[0]).toEqual({
      service_id: expect.any(String) as unknown,
      status: 'pending',
      attempts: 0,
      remote_url: null,
      remote_id: null,
      last_error: null,
      edit_status: null,
      edit_error: null,
      updated_at: expect.any(Number) as unknown,
    });
  });

  it('groups: [] stores the post and delivers it nowhere', async () => {
    const jobs = await countRows(t.database, 'jobs');
    const response = await post({ text: 'just for me', groups: [] });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({ deliveries: [] });
    expect(await countRows(t.database, 'jobs')).toBe(jobs);
  });

  it("a page of posts shows each post's own deliveries, by service id", async () => {
    const first = (
      await post({ text: 'to both groups', groups: [groupB, groupA], scope: 'private' })
    ).json<PostObject>();
    const second = (await post({ text: 'to the first group', groups: [groupA], scope: 'private' })).json<PostObject>();
    const page = await t.app.inject({
      url: '/posts/private?count=2',
      headers: { authorization: `Bearer ${poster}` },
    });
    expect(page.statusCode).toBe(200);
    const byId = new Map(page.json<PostObject[]>().map((p) => [p.id, p.deliveries?.map((d) => d.service_id)]));
    const sorted = (ids: string[]) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(byId).toEqual(
      new Map([
        [first.id, sorted(services)],
        [second.id, sorted([services[0] ?? '', services[1] ?? ''])],
      ]),
    );
  });

  it('the worker delivers it, and the owner sees the outcome on the post; others see no deliveries', async () => {
    const verified: { data: { id: string; text: string } }[] = [];
    receiver.answer = (request, response) => {
      verified.push(new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>) as never);
      response.writeHead(200).end();
    };
    const created = (await post({ text: 'to group A', groups: [groupA] })).json<PostObject>();
    const runner = createJobRunner({ config: t.config, database: t.database });
    while ((await runner.worker.runOnce()) > 0);
    await runner.close();

    expect(verified.filter((v) => v.data.id === created.id).map((v) => v.data.text)).toEqual([
      'to group A',
      'to group A',
    ]);
    const own = await t.app.inject({ url: `/posts/id/${created.id}`, headers: { authorization: `Bearer ${poster}` } });
    expect(own.json<PostObject>().deliveries?.map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);
    const anonymous = await t.app.inject({ url: `/posts/id/${created.id}` });
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json()).not.toHaveProperty('deliveries');
    const stranger = await tokenFor(t, bob, ['get_private_scope']);
    const other = await t.app.inject({
      url: `/posts/id/${created.id}`,
      headers: { authorization: `Bearer ${stranger}` },
    });
    expect(other.json()).not.toHaveProperty('deliveries');
    const listed = await t.app.inject({ url: '/posts/public', headers: { authorization: `Bearer ${poster}` } });
    expect(listed.json<PostObject[]>().find((p) => p.id === created.id)?.deliveries).toHaveLength(2);
    const publicList = await t.app.inject({ url: `/posts/public/${alice.username}` });
    expect(publicList.json<PostObject[]>().find((p) => p.id === created.id)).not.toHaveProperty('deliveries');
  });
});

describe('POST /posts validation', () => {
  it.each([
    ['text missing', { groups: [] }, 'body/text'],
    ['text empty after trimming', { text: ' \n\t ', groups: [] }, 'body/text'],
    ['text over 5000 characters', { text: 'x'.repeat(5001), groups: [] }, 'body/text'],
    ['groups missing', { text: 'hi' }, 'body/groups'],
    ['groups not an array', { text: 'hi', groups: { all: true } }, 'body/groups'],
    ['a group id of the wrong type', { text: 'hi', groups: [5] }, 'body/groups/0'],
    ['text of the wrong type', { text: 42, groups: [] }, 'body/text'],
    ['a string for groups', { text: 'hi', groups: 'all' }, 'body/groups'],
    ['an unknown group', { text: 'hi', groups: ['01J00000000000000000000000'] }, 'body/groups/0'],
    ['an extra field', { text: 'hi', groups: [], pin: true }, 'body/pin'],
    ['an unknown medium', { text: 'hi', groups: [], media_ids: ['nope'] }, 'body/media_ids/0'],
    ['a bad scope', { text: 'hi', groups: [], scope: 'friends' }, 'body/scope'],
  ])('%s is 400 with the reason, and nothing is stored', async (_name, body, path) => {
    const before = [await countRows(t.database, 'posts'), await countRows(t.database, 'deliveries')];
    const response = await post(body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(path);
    expect([await countRows(t.database, 'posts'), await countRows(t.database, 'deliveries')]).toEqual(before);
  });

  it("another person's group is 400, with the same message as an unknown one", async () => {
    const foreign = await post({ text: 'hi', groups: [bobsGroup] });
    const unknown = await post({ text: 'hi', groups: ['01J00000000000000000000000'] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({
      errors: [{ path: 'body/groups/0', message: 'unknown group' }],
    });
    expect(foreign.json<{ errors: unknown }>().errors).toEqual(unknown.json<{ errors: unknown }>().errors);
  });

  it('duplicate groups are 400', async () => {
    const response = await post({ text: 'hi', groups: [groupA, groupA] });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ errors: { path: string }[] }>().errors[0]?.path).toMatch(/^body\/groups/);
  });

  it('a body that is not JSON is 400', async () => {
    const response = await post('{"text": "hi", "groups": [');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 400, code: 'invalid_json' });
  });

  it('401 without create_post, and without a token', async () => {
    const reader = await tokenFor(t, alice, ['get_private_scope']);
    const lacking = await post({ text: 'hi', groups: [] }, {}, reader);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toBe(
      'Bearer realm="waypost", error="insufficient_scope", scope="create_post"',
    );
    const anonymous = await t.app.inject({ method: 'POST', url: '/posts', payload: { text: 'hi', groups: [] } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('POST /posts with Idempotency-Key', () => {
  it('the same key and body: the first response again, and no second post', async () => {
    const body = { text: 'once only', groups: [groupA] };
    const first = await post(body, { 'idempotency-key': 'key-1' });
    const posts = await countRows(t.database, 'posts');
    const deliveries = await countRows(t.database, 'deliveries');
    const again = await post({ groups: [groupA], text: 'once only' }, { 'idempotency-key': 'key-1' });
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await countRows(t.database, 'posts')).toBe(posts);
    expect(await countRows(t.database, 'deliveries')).toBe(deliveries);
  });

  it('the same key with another body is 422', async () => {
    expect((await post({ text: 'first', groups: [] }, { 'idempotency-key': 'key-2' })).statusCode).toBe(202);
    const other = await post({ text: 'second', groups: [] }, { 'idempotency-key': 'key-2' });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('a key still in flight is 409', async () => {
    // What a concurrent first request leaves while it runs: the key claimed, no response yet.
    const body = { text: 'slow', groups: [] };
    const first = await post({ text: 'probe', groups: [] }, { 'idempotency-key': 'probe' });
    expect(first.statusCode).toBe(202);
    const probe = await t.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('key', '=', 'probe')
      .executeTakeFirstOrThrow();
    // Reuse the fingerprint scheme by recording the body through a real request on another key.
    await post(body, { 'idempotency-key': 'fingerprint' });
    const { fingerprint } = await t.database.db
      .selectFrom('idempotency_keys')
      .select('fingerprint')
      .where('key', '=', 'fingerprint')
      .executeTakeFirstOrThrow();
    await insertKey(t.database.db, { ...probe, key: 'busy', fingerprint, response: null, created_at: Date.now() });
    const response = await post(body, { 'idempotency-key': 'busy' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'request_in_flight' });
  });

  it('one user’s key does not collide with another’s; a failed request frees its key', async () => {
    const bobsPoster = await tokenFor(t, bob, ['create_post']);
    expect((await post({ text: 'alice', groups: [] }, { 'idempotency-key': 'shared' })).statusCode).toBe(202);
    expect((await post({ text: 'bob', groups: [] }, { 'idempotency-key': 'shared' }, bobsPoster)).statusCode).toBe(202);
    expect((await post({ text: '', groups: [] }, { 'idempotency-key': 'retry-me' })).statusCode).toBe(400);
    expect((await post({ text: 'fixed', groups: [] }, { 'idempotency-key': 'retry-me' })).statusCode).toBe(202);
  });

  it('an unusable key is 400', async () => {
    const response = await post({ text: 'hi', groups: [] }, { 'idempotency-key': 'x'.repeat(300) });
    expect(response.statusCode).toBe(400);
  });
});
