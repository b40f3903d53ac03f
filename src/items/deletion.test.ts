// Deleting one item through the API: the permission matrix, the same 404 for another person's
// item as for a missing one, private items, public counts and pages, a medium's file shared by
// two accounts, posts naming a deleted medium, a post's deliveries, and ranges of locations.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems, KINDS, type Kind } from '../../test/items.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { fileKey, mediaStorage, stored, thumbnailKey } from '../media/media.storage.ts';
import type { Permission } from '../core/permissions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const WRITE: Record<Kind, Permission> = { posts: 'create_post', media: 'upload_media', locations: 'write_locations' };
const INSUFFICIENT = (scope: string) => `Bearer realm="waypost", error="insufficient_scope", scope="${scope}"`;

const request = (method: 'GET' | 'DELETE', url: string, token?: string) =>
  t.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function publicCounts(username: string) {
  return (await request('GET', `/users/${username}`)).json<{ public_counts: Record<Kind, number> }>().public_counts;
}

describe.each(KINDS)('DELETE /%s/id/<id>', (kind) => {
  it('needs the kind write permission; 204, then the item is gone and the public count drops', async () => {
    const owner = await createTestUser(t.database);
    const [id] = await insertItems(t.database, kind, owner.id, [{ scope: 'public' }]);
    expect((await publicCounts(owner.username))[kind]).toBe(1);

    const none = await request('DELETE', `/${kind}/id/${id}`);
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="waypost"');
    const others = (['create_post', 'upload_media', 'write_locations', 'get_private_scope'] as Permission[]).filter(
      (p) => p !== WRITE[kind],
    );
    const without = await request('DELETE', `/${kind}/id/${id}`, await tokenFor(t, owner, others));
    expect(without.statusCode).toBe(401);
    expect(without.headers['www-authenticate']).toBe(INSUFFICIENT(WRITE[kind]));

    const token = await tokenFor(t, owner, [WRITE[kind]]);
    const done = await request('DELETE', `/${kind}/id/${id}`, token);
    expect(done.statusCode).toBe(204);
    expect(done.body).toBe('');
    expect((await request('GET', `/${kind}/id/${id}`)).statusCode).toBe(404);
    expect((await publicCounts(owner.username))[kind]).toBe(0);
    const again = await request('DELETE', `/${kind}/id/${id}`, token);
    expect(again.statusCode).toBe(404);
  });

  it("another person's item is the same 404 as a missing one, and stays", async () => {
    const [owner, other] = [await createTestUser(t.database), await createTestUser(t.database)];
    const [pub, priv] = await insertItems(t.database, kind, owner.id, [{ scope: 'public' }, { scope: 'private' }]);
    const token = await tokenFor(t, other, [WRITE[kind], 'get_private_scope']);
    const missing = await request('DELETE', `/${kind}/id/01ZZZZZZZZZZZZZZZZZZZZZZZZ`, token);
    expect(missing.statusCode).toBe(404);
    for (const id of [pub, priv]) {
      const foreign = await request('DELETE', `/${kind}/id/${id}`, token);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.headers['content-type']).toBe(missing.headers['content-type']);
      expect(foreign.body).toBe(missing.body);
    }
    expect(await countRows(t.database, kind)).toBeGreaterThanOrEqual(2);
    expect((await publicCounts(owner.username))[kind]).toBe(1);
  });

  it('a private item also needs get_private_scope, as reading it does', async () => {
    const owner = await createTestUser(t.database);
    const [id] = await insertItems(t.database, kind, owner.id, [{ scope: 'private' }]);
    const refused = await request('DELETE', `/${kind}/id/${id}`, await tokenFor(t, owner, [WRITE[kind]]));
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(INSUFFICIENT('get_private_scope'));
    const reader = await tokenFor(t, owner, ['get_private_scope']);
    expect((await request('GET', `/${kind}/id/${id}`, reader)).statusCode).toBe(200);
    const done = await request(
      'DELETE',
      `/${kind}/id/${id}`,
      await tokenFor(t, owner, [WRITE[kind], 'get_private_scope']),
    );
    expect(done.statusCode).toBe(204);
    expect((await request('GET', `/${kind}/id/${id}`, reader)).statusCode).toBe(404);
  });

  it('a public page kept in memory never serves the deleted item', async () => {
    const owner = await createTestUser(t.database);
    const [keep, drop] = await insertItems(t.database, kind, owner.id, [{ scope: 'public' }, { scope: 'public' }]);
    const page = async () =>
      (await request('GET', `/${kind}/public/${owner.username}`)).json<{ id: string }[]>().map((item) => item.id);
    expect((await page()).sort()).toEqual([keep, drop].sort());
    expect((await page()).sort()).toEqual([keep, drop].sort()); // now answered from the copy
    expect((await request('DELETE', `/${kind}/id/${drop}`, await tokenFor(t, owner, [WRITE[kind]]))).statusCode).toBe(
      204,
    );
    expect(await page()).toEqual([keep]);
  });
});

describe('deleting media', () => {
  const image = (colour: string) =>
    sharp({ create: { width: 16, height: 16, channels: 3, background: colour } })
      .png()
      .toBuffer();

  it('a file shared by two accounts stays until its last medium goes, with its thumbnail', async () => {
    const storage = mediaStorage(t.config);
    const [a, b] = [await createTestUser(t.database), await createTestUser(t.database)];
    const [tokenA, tokenB] = [
      await tokenFor(t, a, ['upload_media', 'get_private_scope']),
      await tokenFor(t, b, ['upload_media', 'get_private_scope']),
    ];
    const bytes = await image('#123456');
    const first = (await uploadMedium(t, tokenA, bytes, 'a.png', 'image/png')).json<{ id: string; sha256: string }>();
    const second = (await uploadMedium(t, tokenB, bytes, 'b.png', 'image/png')).json<{ id: string; sha256: string }>();
    const third = (await uploadMedium(t, tokenA, bytes, 'c.png', 'image/png')).json<{ id: string; sha256: string }>();
    expect(second.sha256).toBe(first.sha256);
    const file = fileKey(first.sha256);
    expect(await stored(storage, file)).toBe(true);
    expect(await stored(storage, thumbnailKey(first.sha256))).toBe(true);

    expect((await request('DELETE', `/media/id/${first.id}`, tokenA)).statusCode).toBe(204);
    expect((await request('DELETE', `/media/id/${third.id}`, tokenA)).statusCode).toBe(204);
    expect(await stored(storage, file)).toBe(true); // b's medium still has it
    const stillThere = await request('GET', `/media/id/${second.id}/file`, tokenB);
    expect(stillThere.statusCode).toBe(200);
    expect(stillThere.rawPayload.equals(bytes)).toBe(true);

    expect((await request('DELETE', `/media/id/${second.id}`, tokenB)).statusCode).toBe(204);
    expect(await stored(storage, file)).toBe(false);
    expect(await stored(storage, thumbnailKey(first.sha256))).toBe(false);
  });

  it('a post that names a deleted medium keeps its text and drops the id', async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['upload_media', 'create_post', 'get_private_scope']);
    // Public media: a public post may name only those (a private one is refused).
    const publicly = { scope: 'public' };
    const kept = (await uploadMedium(t, token, await image('#010203'), 'k.png', 'image/png', publicly)).json<{
      id: string;
    }>();
    const gone = (await uploadMedium(t, token, await image('#040506'), 'g.png', 'image/png', publicly)).json<{
      id: string;
    }>();
    const post = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { authorization: `Bearer ${token}` },
      payload: { text: 'two pictures', groups: [], scope: 'public', media_ids: [gone.id, kept.id] },
    });
    expect(post.statusCode).toBe(202);
    const { id } = post.json<{ id: string }>();
    expect((await request('DELETE', `/media/id/${gone.id}`, token)).statusCode).toBe(204);
    const after = (await request('GET', `/posts/id/${id}`)).json<{ text: string; media_ids: string[] }>();
    expect(after).toMatchObject({ text: 'two pictures', media_ids: [kept.id] });
  });
});

describe('deleting a post', () => {
  it('takes its deliveries and their queued jobs with it', async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['create_service', 'manage_groups', 'create_post']);
    const auth = { authorization: `Bearer ${token}` };
    const service = await t.app.inject({
      method: 'POST',
      url: '/services',
      headers: auth,
      payload: {
        type: 'webhook',
        name: 'hook',
        config: { url: 'https://hook.example/in', secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` },
      },
    });
    expect(service.statusCode).toBe(201);
    const group = await t.app.inject({
      method: 'POST',
      url: '/services/groups',
      headers: auth,
      payload: { name: 'g', service_ids: [service.json<{ id: string }>().id] },
    });
    const groups = [group.json<{ id: string }>().id];
    const post = await t.app.inject({ method: 'POST', url: '/posts', headers: auth, payload: { text: 'out', groups } });
    expect(post.statusCode).toBe(202);
    const { id } = post.json<{ id: string }>();
    const deliveries = () => t.database.db.selectFrom('deliveries').select('id').where('post_id', '=', id).execute();
    const [delivery] = await deliveries();
    const jobs = () => t.database.db.selectFrom('jobs').select('id').where('ref', '=', delivery!.id).execute();
    expect(await jobs()).toHaveLength(1);
    expect((await request('DELETE', `/posts/id/${id}`, token)).statusCode).toBe(204);
    expect(await deliveries()).toEqual([]);
    expect(await jobs()).toEqual([]);
  });
});

describe('DELETE /locations (a time range)', () => {
  const T0 = 1_700_000_000;

  it('deletes the points in [since_time, until_time) and says how many', async () => {
    const owner = await createTestUser(t.database);
    await insertItems(
      t.database,
      'locations',
      owner.id,
      [0, 1, 2, 3].map((i) => ({ scope: i % 2 ? 'private' : 'public', time: (T0 + i * 10) * 1000 })),
    );
    const other = await createTestUser(t.database);
    await insertItems(t.database, 'locations', other.id, [{ scope: 'public', time: (T0 + 10) * 1000 }]);
    const all = await tokenFor(t, owner, ['write_locations', 'get_private_scope']);
    const range = `since_time=${T0 + 10}&until_time=${T0 + 30}`;
    const done = await request('DELETE', `/locations?${range}`, all);
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ deleted: 2 });
    const left = await t.database.db.selectFrom('locations').select('time').where('user_id', '=', owner.id).execute();
    expect(left.map((row) => Number(row.time)).sort()).toEqual([T0 * 1000, (T0 + 30) * 1000]);
    expect(
      await t.database.db.selectFrom('locations').select('id').where('user_id', '=', other.id).execute(),
    ).toHaveLength(1);
    expect((await publicCounts(owner.username)).locations).toBe(1);
    expect((await publicCounts(other.username)).locations).toBe(1);
  });

  it('both scopes need get_private_scope; scope=public needs only write_locations', async () => {
    const owner = await createTestUser(t.database);
    await insertItems(t.database, 'locations', owner.id, [
      { scope: 'public', time: T0 * 1000 },
      { scope: 'private', time: T0 * 1000 + 1 },
    ]);
    const writer = await tokenFor(t, owner, ['write_locations']);
    const range = `since_time=${T0 - 1}&until_time=${T0 + 1}`;
    const refused = await request('DELETE', `/locations?${range}`, writer);
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(INSUFFICIENT('get_private_scope'));
    expect((await request('DELETE', `/locations?${range}&scope=private`, writer)).statusCode).toBe(401);
    const publicOnly = await request('DELETE', `/locations?${range}&scope=public`, writer);
    expect(publicOnly.json()).toEqual({ deleted: 1 });
    const noPermission = await request(
      'DELETE',
      `/locations?${range}`,
      await tokenFor(t, owner, ['get_private_scope']),
    );
    expect(noPermission.headers['www-authenticate']).toBe(INSUFFICIENT('write_locations'));
    expect(await countRows(t.database, 'locations')).toBeGreaterThan(0);
  });

  it('both times are required numbers', async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['write_locations', 'get_private_scope']);
    for (const query of [
      '',
      `since_time=${T0}`,
      `until_time=${T0}`,
      `since_time=&until_time=${T0}`,
      'since_time=x&until_time=1',
    ]) {
      const response = await request('DELETE', `/locations?${query}`, token);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    }
    expect((await request('DELETE', `/locations?since_time=${T0}&until_time=${T0}`, token)).json()).toEqual({
      deleted: 0,
    });
  });
});
