// Services and service groups through HTTP, on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import type { Permission } from '../core/permissions.ts';
import { deliveriesForPosts, enqueueDeliveries } from './deliveries.logic.ts';

let t: TestApp;
let alice: { id: string; username: string };
let bob: { id: string; username: string };
let all: string;
let bobs: string;

const EVERYTHING: Permission[] = ['get_services', 'create_service', 'delete_service', 'manage_groups'];
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

beforeAll(async () => {
  t = await buildTestApp();
  alice = await createTestUser(t.database);
  bob = await createTestUser(t.database);
  all = await tokenFor(t, alice, EVERYTHING);
  bobs = await tokenFor(t, bob, EVERYTHING);
});
afterAll(() => t.close());

function call(method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

async function newWebhook(token = all, name = 'hook') {
  const response = await call('POST', '/services', token, {
    type: 'webhook',
    name,
    config: { url: 'https://hooks.example/in', secret: SECRET },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>();
}

describe('services', () => {
  it('POST /services: 201, Location, the secret redacted; stored encrypted', async () => {
    const response = await call('POST', '/services', all, {
      type: 'mastodon',
      name: 'My Mastodon',
      config: { instance_url: 'https://social.example', access_token: 'very-secret-token' },
    });
    expect(response.statusCode).toBe(201);
    const service = response.json<{ id: string }>();
    expect(response.headers.location).toBe(`/services/${service.id}`);
    expect(service).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/) as unknown,
      type: 'mastodon',
      name: 'My Mastodon',
      enabled: true,
      capabilities: ['publish'],
      config: { instance_url: 'https://social.example', access_token: '[redacted]' },
      status: 'ok',
      last_error: null,
      created_at: expect.any(Number) as unknown,
    });
    const row = await t.database.db.selectFrom('services').selectAll().where('id', '=', service.id).executeTakeFirst();
    expect(JSON.stringify(row)).not.toContain('very-secret-token');
    expect(row?.secrets).toMatch(/^v1\./);
  });

  it('GET /services/:id returns an array holding the one service; GET /services lists them', async () => {
    const hook = await newWebhook(all, 'listed');
    const one = await call('GET', `/services/${hook.id}`, all);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual([
      expect.objectContaining({
        id: hook.id,
        type: 'webhook',
        config: { url: 'https://hooks.example/in', secret: '[redacted]' },
      }),
    ]);
    const list = await call('GET', '/services', all);
    expect(list.json<{ id: string }[]>().map((s) => s.id)).toContain(hook.id);
    expect(JSON.stringify(list.json())).not.toContain(SECRET);
  });

  it("another person's service is 404 with the same body as a missing one", async () => {
    const hook = await newWebhook(bobs);
    const foreign = await call('GET', `/services/${hook.id}`, all);
    const missing = await call('GET', '/services/01J00000000000000000000000', all);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(missing.json());
    expect((await call('DELETE', `/services/${hook.id}`, all)).statusCode).toBe(404);
    expect((await call('GET', '/services', all)).json<{ id: string }[]>().map((s) => s.id)).not.toContain(hook.id);
  });

  it.each([
    [{ type: 'webhook', name: 'x', config: { secret: SECRET } }, 'body/config/url', 'is required'],
    [
      { type: 'webhook', name: 'x', config: { url: 'https://a.example', secret: 'hunter2' } },
      'body/config/secret',
      'must be whsec_ followed by 32 to 88 base64 letters; or leave it out and Waypost makes one for you',
    ],
    [
      { type: 'webhook', name: 'x', config: { url: 'ftp://a.example', secret: SECRET } },
      'body/config/url',
      'must be a web address starting with https:// (or http://)',
    ],
    [
      { type: 'webhook', name: 'x', config: { url: 'https://a.example', secret: SECRET, extra: 1 } },
      'body/config/extra',
      'is not a webhook setting',
    ],
    [
      { type: 'micropub', name: 'x', config: { endpoint: 5, access_token: 't' } },
      'body/config/endpoint',
      'must be text',
    ],
    [{ type: 'gopher', name: 'x', config: {} }, 'body/type', ''],
    [{ type: 'webhook', name: 5, config: {} }, 'body/name', ''],
    [{ type: 'webhook', name: 'x', config: 'url=x' }, 'body/config', ''],
    [{ type: 'webhook', name: '', config: {} }, 'body/name', ''],
    [{ type: 'webhook', name: 'x', config: {}, colour: 'red' }, 'body/colour', ''],
  ])('POST /services %j is 400 at %s', async (body, path, message) => {
    const response = await call('POST', '/services', all, body);
    expect(response.statusCode).toBe(400);
    const problem = response.json<{ errors: { path: string; message: string }[] }>();
    expect(problem.errors).toContainEqual({ path, message: expect.stringContaining(message) as unknown });
    // A rejected secret is never echoed back.
    expect(response.body).not.toContain('hunter2');
  });

  it('needs the permissions: get_services to read, create_service to add, delete_service to delete', async () => {
    const reader = await tokenFor(t, alice, ['get_services']);
    const hook = await newWebhook();
    expect((await call('GET', '/services')).statusCode).toBe(401);
    const noRead = await call('GET', '/services', await tokenFor(t, alice, ['create_service']));
    expect(noRead.statusCode).toBe(401);
    expect(noRead.headers['www-authenticate']).toContain('scope="get_services"');
    const noCreate = await call('POST', '/services', reader, { type: 'webhook', name: 'x', config: {} });
    expect(noCreate.headers['www-authenticate']).toContain('scope="create_service"');
    const noDelete = await call('DELETE', `/services/${hook.id}`, reader);
    expect(noDelete.statusCode).toBe(401);
    expect(noDelete.headers['www-authenticate']).toContain('scope="delete_service"');
  });
});

describe('service groups', () => {
  it('/services/groups is not taken for a service id', async () => {
    const response = await call('GET', '/services/groups', all);
    expect(response.statusCode).toBe(200);
    expect(Array.isArray(response.json())).toBe(true);
  });

  it('create, add a member (twice is harmless), read, remove, delete', async () => {
    const a = await newWebhook();
    const b = await newWebhook();
    const created = await call('POST', '/services/groups', all, { name: 'Everywhere', service_ids: [a.id] });
    expect(created.statusCode).toBe(201);
    const group = created.json<{ id: string }>();
    expect(created.headers.location).toBe(`/services/groups/${group.id}`);
    expect(group).toEqual({
      id: group.id,
      name: 'Everywhere',
      service_ids: [a.id],
      created_at: expect.any(Number) as unknown,
    });

    for (let i = 0; i < 2; i += 1) {
      const added = await call('POST', `/services/groups/${group.id}/${b.id}`, all);
      expect(added.statusCode).toBe(200);
      expect(added.json()).toMatchObject({ service_ids: [a.id, b.id] });
    }
    expect((await call('GET', `/services/groups/${group.id}`, all)).json()).toMatchObject({
      service_ids: [a.id, b.id],
    });
    expect((await call('GET', '/services/groups', all)).json()).toContainEqual(
      expect.objectContaining({ id: group.id, service_ids: [a.id, b.id] }),
    );

    expect((await call('DELETE', `/services/groups/${group.id}/${a.id}`, all)).statusCode).toBe(204);
    expect((await call('DELETE', `/services/groups/${group.id}/${a.id}`, all)).statusCode).toBe(204);
    expect((await call('GET', `/services/groups/${group.id}`, all)).json()).toMatchObject({ service_ids: [b.id] });

    // Deleting a service removes it from its groups.
    expect((await call('DELETE', `/services/${b.id}`, all)).statusCode).toBe(204);
    expect((await call('GET', `/services/groups/${group.id}`, all)).json()).toMatchObject({ service_ids: [] });

    expect((await call('DELETE', `/services/groups/${group.id}`, all)).statusCode).toBe(204);
    expect((await call('GET', `/services/groups/${group.id}`, all)).statusCode).toBe(404);
    expect((await call('DELETE', `/services/groups/${group.id}`, all)).statusCode).toBe(404);
  });

  it("another person's group or service is 404; a foreign service in a new group is 400", async () => {
    const mine = await newWebhook();
    const theirs = await newWebhook(bobs);
    const group = (await call('POST', '/services/groups', all, { name: 'g' })).json<{ id: string }>();
    const bobsGroup = (await call('POST', '/services/groups', bobs, { name: 'b' })).json<{ id: string }>();

    expect((await call('POST', `/services/groups/${group.id}/${theirs.id}`, all)).statusCode).toBe(404);
    expect((await call('POST', `/services/groups/${bobsGroup.id}/${mine.id}`, all)).statusCode).toBe(404);
    expect((await call('GET', `/services/groups/${bobsGroup.id}`, all)).statusCode).toBe(404);
    expect((await call('DELETE', `/services/groups/${bobsGroup.id}`, all)).statusCode).toBe(404);
    expect((await call('DELETE', `/services/groups/${group.id}/${theirs.id}`, all)).statusCode).toBe(404);
    const bad = await call('POST', '/services/groups', all, { name: 'x', service_ids: [mine.id, theirs.id] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      errors: [{ path: 'body/service_ids/1', message: 'is not one of your services' }],
    });
  });

  it('reading needs get_services, changing needs manage_groups', async () => {
    const reader = await tokenFor(t, alice, ['get_services']);
    const group = (await call('POST', '/services/groups', all, { name: 'g' })).json<{ id: string }>();
    const hook = await newWebhook();
    expect((await call('GET', `/services/groups/${group.id}`, reader)).statusCode).toBe(200);
    for (const [method, url] of [
      ['POST', '/services/groups'],
      ['DELETE', `/services/groups/${group.id}`],
      ['POST', `/services/groups/${group.id}/${hook.id}`],
      ['DELETE', `/services/groups/${group.id}/${hook.id}`],
    ] as const) {
      const response = await call(
        method,
        url,
        reader,
        method === 'POST' && url.endsWith('groups') ? { name: 'n' } : undefined,
      );
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toContain('scope="manage_groups"');
    }
    const noRead = await call('GET', '/services/groups', await tokenFor(t, alice, ['manage_groups']));
    expect(noRead.headers['www-authenticate']).toContain('scope="get_services"');
  });
});

describe('deleting and the queue', () => {
  const post = (id: string) => ({
    id,
    username: 'alice',
    text: 'hello',
    scope: 'public' as const,
    time: 1,
    created_at: 1,
    url: `http://waypost.test/posts/id/${id}`,
    media_ids: [],
    location: null,
  });

  it('deleting a service cancels its pending deliveries; deleting a group leaves queued ones alone', async () => {
    const a = await newWebhook();
    const b = await newWebhook();
    const group = (await call('POST', '/services/groups', all, { name: 'g', service_ids: [a.id, b.id] })).json<{
      id: string;
    }>();
    const jobsBefore = await countRows(t.database, 'jobs');
    await t.database.db
      .transaction()
      .execute((trx) =>
        enqueueDeliveries(trx, { userId: alice.id, post: post('P1'), groupIds: [group.id], maxAttempts: 3, now: 1000 }),
      );
    expect(await countRows(t.database, 'jobs')).toBe(jobsBefore + 2);

    expect((await call('DELETE', `/services/groups/${group.id}`, all)).statusCode).toBe(204);
    expect((await deliveriesForPosts(t.database.db, alice.id, ['P1'])).get('P1')?.map((d) => d.status)).toEqual([
      'pending',
      'pending',
    ]);

    expect((await call('DELETE', `/services/${a.id}`, all)).statusCode).toBe(204);
    const after = (await deliveriesForPosts(t.database.db, alice.id, ['P1'])).get('P1') ?? [];
    expect(Object.fromEntries(after.map((d) => [d.service_id, d.status]))).toEqual({
      [a.id]: 'cancelled',
      [b.id]: 'pending',
    });
    const jobs = await t.database.db.selectFrom('jobs').select(['status']).where('kind', '=', 'delivery').execute();
    expect(jobs.filter((j) => j.status === 'cancelled')).toHaveLength(1);
  });

  it('a disabled service gets no deliveries', async () => {
    const on = await newWebhook();
    const off = await call('POST', '/services', all, {
      type: 'webhook',
      name: 'paused',
      enabled: false,
      config: { url: 'https://hooks.example/off', secret: SECRET },
    });
    expect(off.json()).toMatchObject({ enabled: false });
    const offId = off.json<{ id: string }>().id;
    const group = (await call('POST', '/services/groups', all, { name: 'g', service_ids: [on.id, offId] })).json<{
      id: string;
    }>();
    const deliveries = await t.database.db
      .transaction()
      .execute((trx) =>
        enqueueDeliveries(trx, { userId: alice.id, post: post('P2'), groupIds: [group.id], maxAttempts: 3, now: 1000 }),
      );
    expect(deliveries.map((d) => d.service_id)).toEqual([on.id]);
  });
});
