// Views through HTTP with real tokens: CRUD, validation, the access matrix (as for items), a
// public view showing only public items to anyone, filters, and merged keyset paging across
// the three kinds (every matching item exactly once, in order, with inserts between pages).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems, KINDS, type Kind } from '../../test/items.ts';
import {
  blank,
  byClass,
  expectAnswer,
  invalid,
  notAnObject,
  notAString,
  PAGING_CLASSES,
  refused,
  unknownField,
  type InputClass,
} from '../../test/fuzz.ts';
import { tokenFor } from '../../test/tokens.ts';
import { newId } from '../lib/ids.ts';
import { roundPoint } from '../privacy/precision.ts';
import { updateSettings } from '../settings/settings.logic.ts';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createTestUser>>;
let other: Awaited<ReturnType<typeof createTestUser>>;
const tok: Record<string, string> = {};
/** The owner's items, by kind and scope. */
const ids: Record<Kind, { public: string[]; private: string[] }> = {} as never;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createTestUser(t.database, { username: 'viewer' });
  other = await createTestUser(t.database, { username: 'stranger' });
  tok.all = await tokenFor(t, owner, ['get_views', 'manage_views', 'get_private_scope']);
  tok.views = await tokenFor(t, owner, ['get_views']);
  tok.manage = await tokenFor(t, owner, ['manage_views']);
  tok.bare = await tokenFor(t, owner, ['get_private_scope']);
  tok.other = await tokenFor(t, other, ['get_views', 'manage_views', 'get_private_scope']);
  for (const [index, kind] of KINDS.entries()) {
    const made = await insertItems(t.database, kind, owner.id, [
      { scope: 'public', time: 10_000 + index },
      { scope: 'private', time: 20_000 + index },
      { scope: 'public', time: 30_000 + index },
    ]);
    ids[kind] = { public: [made[0]!, made[2]!], private: [made[1]!] };
  }
  // The stranger's public items never show in the owner's views.
  for (const kind of KINDS) await insertItems(t.database, kind, other.id, [{ scope: 'public', time: 15_000 }]);
});
afterAll(() => t.close());

type Entry = { kind: Kind; item: { id: string; scope: string; time: number } };
type ViewBody = { id: string; created_at: number; updated_at: number; items: Entry[]; [field: string]: unknown };

const headers = (token: string | undefined) => (token ? { authorization: `Bearer ${token}` } : {});
const get = (url: string, token?: string) => t.app.inject({ method: 'GET', url, headers: headers(token) });
const post = (url: string, body: unknown, token = tok.all) =>
  t.app.inject({ method: 'POST', url, headers: headers(token), payload: body as object });
const del = (url: string, token = tok.all) => t.app.inject({ method: 'DELETE', url, headers: headers(token) });

async function create(body: Record<string, unknown>, token = tok.all): Promise<ViewBody> {
  const response = await post('/views', body, token);
  expect(response.statusCode, response.body).toBe(201);
  return response.json<ViewBody>();
}

/** The path and query of a `Link: <url>; rel="next"` header, to inject; undefined without one. */
function nextUrl(link: string | undefined): string | undefined {
  if (link === undefined) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match).not.toBeNull();
  const url = new URL(match![1]!);
  return url.pathname + url.search;
}

const itemIds = (body: ViewBody) => body.items.map((entry) => entry.item.id);
const INSUFFICIENT = (permission: string) =>
  `Bearer realm="waypost", error="insufficient_scope", scope="${permission}"`;

describe('CRUD', () => {
  it('POST /views: 201, Location, the view with its defaults', async () => {
    const response = await post('/views', { name: '  Everything  ' });
    expect(response.statusCode).toBe(201);
    const view = response.json<ViewBody>();
    expect(response.headers.location).toBe(`/views/${view.id}`);
    expect(view).toEqual({
      id: view.id,
      username: 'viewer',
      name: 'Everything',
      description: '',
      kinds: ['posts', 'media', 'locations'],
      filters: {},
      scope: 'private',
      created_at: view.created_at,
      updated_at: view.created_at,
    });
    expect(view.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(typeof view.created_at).toBe('number');
  });

  it('GET, update, list, delete', async () => {
    const view = await create({
      name: 'Trips',
      description: 'Where I went',
      kinds: ['locations', 'posts'],
      filters: { since_time: 1, until_time: 2.5, bbox: [-10, 40, 20, 60], scope: 'public', text: 'x' },
      scope: 'public',
    });
    const read = await get(`/views/${view.id}`);
    expect(read.statusCode).toBe(200);
    const { items, ...fields } = read.json<ViewBody>();
    expect(fields).toEqual(view);
    expect(items).toEqual([]);

    const changed = await post(`/views/${view.id}`, { name: 'Journeys', filters: { scope: 'public' } });
    expect(changed.statusCode).toBe(200);
    const updated = changed.json<ViewBody>();
    expect(updated).toEqual({
      ...view,
      name: 'Journeys',
      filters: { scope: 'public' },
      updated_at: updated.updated_at,
    });
    expect(updated.updated_at).toBeGreaterThanOrEqual(view.updated_at);

    const list = await get('/views', tok.all);
    expect(list.statusCode).toBe(200);
    expect(list.json<{ id: string }[]>().map((v) => v.id)).toContain(view.id);
    expect(list.json<{ id: string; name: string }[]>().find((v) => v.id === view.id)?.name).toBe('Journeys');

    const gone = await del(`/views/${view.id}`);
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    expect((await get(`/views/${view.id}`)).statusCode).toBe(404);
    expect((await del(`/views/${view.id}`)).statusCode).toBe(404);
    expect((await post(`/views/${view.id}`, { name: 'again' })).statusCode).toBe(404);
    expect((await get('/views', tok.all)).json<{ id: string }[]>().map((v) => v.id)).not.toContain(view.id);
  });

  it.each([
    { body: {}, path: 'body/name', message: 'is required' },
    { body: { name: '   ' }, path: 'body/name', message: 'must not be blank' },
    { body: { name: 42 }, path: 'body/name', message: undefined },
    { body: { name: 'a', kinds: 'posts' }, path: 'body/kinds', message: undefined },
    { body: { name: 'a', filters: { since_time: '5' } }, path: 'body/filters/since_time', message: undefined },
    { body: { name: 'x'.repeat(101) }, path: 'body/name', message: undefined },
    { body: { name: 'a', owner: 'me' }, path: 'body/owner', message: undefined },
    { body: { name: 'a', kinds: [] }, path: 'body/kinds', message: undefined },
    { body: { name: 'a', kinds: ['posts', 'posts'] }, path: 'body/kinds', message: undefined },
    { body: { name: 'a', kinds: ['comments'] }, path: 'body/kinds/0', message: undefined },
    { body: { name: 'a', scope: 'friends' }, path: 'body/scope', message: undefined },
    { body: { name: 'a', filters: { colour: 'red' } }, path: 'body/filters/colour', message: undefined },
    { body: { name: 'a', filters: { bbox: [1, 2, 3] } }, path: 'body/filters/bbox', message: undefined },
    { body: { name: 'a', filters: { bbox: [0, 50, 10, 40] } }, path: 'body/filters/bbox', message: undefined },
    { body: { name: 'a', filters: { bbox: [0, 0, 190, 10] } }, path: 'body/filters/bbox', message: undefined },
    {
      body: { name: 'a', filters: { since_time: 5, until_time: 5 } },
      path: 'body/filters/until_time',
      message: undefined,
    },
    { body: { name: 'a', filters: { sources: [] } }, path: 'body/filters/sources', message: undefined },
    { body: { name: 'a', filters: { text: '' } }, path: 'body/filters/text', message: undefined },
    { body: { name: 'a', filters: { scope: 'secret' } }, path: 'body/filters/scope', message: undefined },
    {
      body: { name: 'a', scope: 'public', filters: { scope: 'private' } },
      path: 'body/filters/scope',
      message: 'a public view only ever shows public items',
    },
  ])('400 naming $path (case %#); nothing stored', async ({ body, path, message }) => {
    const before = (await get('/views', tok.all)).json<unknown[]>().length;
    const response = await post('/views', body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const problem = response.json<{ errors: { path: string; message: string }[] }>();
    expect(problem.errors.map((e) => e.path)).toContain(path);
    if (message) expect(problem.errors).toContainEqual({ path, message });
    expect((await get('/views', tok.all)).json<unknown[]>()).toHaveLength(before);
  });

  it('an update is checked as a whole view: making a view public keeps no private filter', async () => {
    const view = await create({ name: 'Mine', filters: { scope: 'private' } });
    const response = await post(`/views/${view.id}`, { scope: 'public' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      errors: [{ path: 'body/filters/scope', message: 'a public view only ever shows public items' }],
    });
    expect((await post(`/views/${view.id}`, { unknown: 1 })).statusCode).toBe(400);
  });

  it('400 for bad collection parameters on GET /views/<id>', async () => {
    const view = await create({ name: 'Params', scope: 'public' });
    for (const query of ['count=0', 'count=1001', 'count=many', 'since_time=soon', 'order=up', 'cursor=%25%25']) {
      const response = await get(`/views/${view.id}?${query}`);
      expect(response.statusCode, query).toBe(400);
    }
  });
});

describe('access', () => {
  let privateView: ViewBody;
  let publicView: ViewBody;

  beforeAll(async () => {
    privateView = await create({ name: 'Private' });
    publicView = await create({ name: 'Public', scope: 'public' });
  });

  it('a private view: 401 without token, 404 for another user, 401 insufficient_scope for each missing permission', async () => {
    const url = `/views/${privateView.id}`;
    const anonymous = await get(url);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="waypost"');

    const foreign = await get(url, tok.other);
    const missing = await get(`/views/${newId()}`, tok.other);
    for (const response of [foreign, missing]) expect(response.statusCode).toBe(404);
    const strip = (body: string) => body.replace(/"instance":"[^"]*",?/, '');
    expect(strip(foreign.body)).toBe(strip(missing.body));

    const noViews = await get(url, tok.bare);
    expect(noViews.statusCode).toBe(401);
    expect(noViews.headers['www-authenticate']).toBe(INSUFFICIENT('get_views'));
    const noPrivate = await get(url, tok.views);
    expect(noPrivate.statusCode).toBe(401);
    expect(noPrivate.headers['www-authenticate']).toBe(INSUFFICIENT('get_private_scope'));

    const allowed = await get(url, tok.all);
    expect(allowed.statusCode).toBe(200);
    const all = KINDS.flatMap((kind) => [...ids[kind].public, ...ids[kind].private]);
    expect(itemIds(allowed.json<ViewBody>()).sort()).toEqual(all.sort());
  });

  it('a public view over public and private items shows only the public ones, to anyone', async () => {
    const url = `/views/${publicView.id}`;
    const publicIds = KINDS.flatMap((kind) => ids[kind].public).sort();
    const bodies: string[] = [];
    for (const token of [undefined, tok.other, tok.bare, tok.views, tok.all]) {
      const response = await get(url, token);
      expect(response.statusCode).toBe(200);
      const body = response.json<ViewBody>();
      expect(itemIds(body).sort()).toEqual(publicIds);
      expect(body.items.every((entry) => entry.item.scope === 'public')).toBe(true);
      bodies.push(response.body);
    }
    expect(new Set(bodies).size).toBe(1);
  });

  it('an invalid token is 401 even on a public view', async () => {
    const response = await get(`/views/${publicView.id}`, 'not-a-token');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it("GET /views: get_views; private views only with get_private_scope; only the caller's own", async () => {
    expect((await get('/views')).statusCode).toBe(401);
    const lacking = await get('/views', tok.bare);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toBe(INSUFFICIENT('get_views'));

    const withPrivate = (await get('/views', tok.all)).json<{ id: string; scope: string }[]>();
    expect(withPrivate.map((v) => v.id)).toEqual(expect.arrayContaining([privateView.id, publicView.id]));
    const publicOnly = (await get('/views', tok.views)).json<{ id: string; scope: string }[]>();
    expect(publicOnly.map((v) => v.id)).toContain(publicView.id);
    expect(publicOnly.every((v) => v.scope === 'public')).toBe(true);
    expect(publicOnly.length).toBeLessThan(withPrivate.length);
    expect((await get('/views', tok.other)).json()).toEqual([]);
  });

  it('writing needs manage_views; a private view needs get_views and get_private_scope too', async () => {
    const noManage = await post('/views', { name: 'x', scope: 'public' }, tok.views);
    expect(noManage.statusCode).toBe(401);
    expect(noManage.headers['www-authenticate']).toBe(INSUFFICIENT('manage_views'));
    expect((await del(`/views/${publicView.id}`, tok.views)).statusCode).toBe(401);

    const privateCreate = await post('/views', { name: 'x' }, tok.manage);
    expect(privateCreate.statusCode).toBe(401);
    expect(privateCreate.headers['www-authenticate']).toBe(INSUFFICIENT('get_views'));
    const manageAndPrivate = await tokenFor(t, owner, ['manage_views', 'get_private_scope']);
    const withoutGetViews = await post(`/views/${privateView.id}`, { name: 'peek' }, manageAndPrivate);
    expect(withoutGetViews.statusCode).toBe(401);
    expect(withoutGetViews.headers['www-authenticate']).toBe(INSUFFICIENT('get_views'));
    const deleteUnseen = await del(`/views/${privateView.id}`, manageAndPrivate);
    expect(deleteUnseen.statusCode).toBe(401);
    expect(deleteUnseen.headers['www-authenticate']).toBe(INSUFFICIENT('get_views'));
    const privateUpdate = await post(`/views/${privateView.id}`, { name: 'peek' }, tok.manage);
    expect(privateUpdate.statusCode).toBe(401);
    const makePrivate = await post(`/views/${publicView.id}`, { scope: 'private' }, tok.manage);
    expect(makePrivate.statusCode).toBe(401);

    const publicCreate = await post('/views', { name: 'open', scope: 'public' }, tok.manage);
    expect(publicCreate.statusCode).toBe(201);
    const id = publicCreate.json<{ id: string }>().id;
    expect((await post(`/views/${id}`, { description: 'changed' }, tok.manage)).statusCode).toBe(200);
    expect((await del(`/views/${id}`, tok.manage)).statusCode).toBe(204);
  });

  it("another user's view, public or private, cannot be changed or deleted: 404", async () => {
    for (const view of [privateView, publicView]) {
      expect((await post(`/views/${view.id}`, { name: 'mine now' }, tok.other)).statusCode).toBe(404);
      expect((await del(`/views/${view.id}`, tok.other)).statusCode).toBe(404);
    }
    expect((await get(`/views/${privateView.id}`, tok.all)).json()).toMatchObject({ name: 'Private' });
  });
});

// Every view route x every kind of caller x public and private view, with exact statuses
// (docs/api-views.md "The matrix"). Each cell works on a view of its own, made just before.
describe('access matrix', () => {
  type Caller = 'none' | 'nothing' | 'read' | 'manage' | 'all' | 'other';
  type Route = 'list' | 'create' | 'read' | 'change' | 'delete';
  const callers: Caller[] = ['none', 'nothing', 'read', 'manage', 'all', 'other'];
  const token: Record<Caller, string | undefined> = {} as never;
  const REALM = 'Bearer realm="waypost"';

  beforeAll(async () => {
    token.none = undefined;
    token.nothing = await tokenFor(t, owner, ['create_post']);
    token.read = await tokenFor(t, owner, ['get_views', 'get_private_scope']);
    token.manage = await tokenFor(t, owner, ['manage_views']);
    token.all = tok.all;
    token.other = tok.other;
  });

  // [status, WWW-Authenticate of a 401] per caller, in the order of `callers`.
  type Cell = number | [401, string];
  const none: Cell = [401, REALM];
  const lacks = (permission: string): Cell => [401, INSUFFICIENT(permission)];
  const MATRIX: [Route, 'public' | 'private', Cell[]][] = [
    ['list', 'public', [none, lacks('get_views'), 200, lacks('get_views'), 200, 200]],
    ['list', 'private', [none, lacks('get_views'), 200, lacks('get_views'), 200, 200]],
    ['create', 'public', [none, lacks('manage_views'), lacks('manage_views'), 201, 201, 201]],
    ['create', 'private', [none, lacks('manage_views'), lacks('manage_views'), lacks('get_views'), 201, 201]],
    ['read', 'public', [200, 200, 200, 200, 200, 200]],
    ['read', 'private', [none, lacks('get_views'), 200, lacks('get_views'), 200, 404]],
    ['change', 'public', [none, lacks('manage_views'), lacks('manage_views'), 200, 200, 404]],
    ['change', 'private', [none, lacks('manage_views'), lacks('manage_views'), lacks('get_views'), 200, 404]],
    ['delete', 'public', [none, lacks('manage_views'), lacks('manage_views'), 204, 204, 404]],
    ['delete', 'private', [none, lacks('manage_views'), lacks('manage_views'), lacks('get_views'), 204, 404]],
  ];

  const cells = MATRIX.flatMap(([route, scope, row]) =>
    callers.map((caller, index) => [route, scope, caller, row[index]!] as const),
  );

  it.each(cells)('%s a %s view as %s: %j', async (route, scope, caller, cell) => {
    const [status, challenge] = typeof cell === 'number' ? [cell, undefined] : cell;
    const view = await create({ name: `${route} ${scope} ${caller}`, scope });
    const url = `/views/${view.id}`;
    const as = token[caller];
    const response = await {
      list: () => get('/views', as),
      create: () =>
        t.app.inject({ method: 'POST', url: '/views', headers: headers(as), payload: { name: 'n', scope } }),
      read: () => get(url, as),
      change: () => t.app.inject({ method: 'POST', url, headers: headers(as), payload: { description: 'changed' } }),
      delete: () => t.app.inject({ method: 'DELETE', url, headers: headers(as) }),
    }[route]();
    expect(response.statusCode, response.body).toBe(status);
    expect(response.headers['www-authenticate']).toBe(challenge);
    if (status === 404) {
      const method = route === 'read' ? 'GET' : route === 'change' ? 'POST' : 'DELETE';
      const missing = await t.app.inject({
        method,
        url: `/views/${newId()}`,
        headers: headers(as),
        ...(route === 'change' ? { payload: { description: 'changed' } } : {}),
      });
      expect(missing.statusCode).toBe(404);
      expect(response.body).toBe(missing.body);
    }
    if (route === 'list' && status === 200) {
      const listed = response.json<{ id: string }[]>().map((v) => v.id);
      expect(listed.includes(view.id)).toBe(caller !== 'other');
    }
    // A refused change or delete changed nothing.
    const after = (await get(url, tok.all)).json<ViewBody>();
    const changed = route === 'change' && status === 200;
    const deleted = route === 'delete' && status === 204;
    if (deleted) expect((await get(url, tok.all)).statusCode).toBe(404);
    else expect(after.description).toBe(changed ? 'changed' : '');
  });
});

describe('filters', () => {
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let token: string;

  beforeAll(async () => {
    user = await createTestUser(t.database);
    token = await tokenFor(t, user, ['get_views', 'manage_views', 'get_private_scope']);
  });

  const itemsOf = async (filters: Record<string, unknown>, kinds: Kind[] = KINDS, scope = 'private') => {
    const view = await create({ name: 'f', kinds, filters, scope }, token);
    const response = await get(`/views/${view.id}?count=1000`, token);
    expect(response.statusCode).toBe(200);
    return itemIds(response.json<ViewBody>()).sort();
  };

  it('time range, scope, kinds', async () => {
    const made = await Promise.all(
      KINDS.map((kind) =>
        insertItems(t.database, kind, user.id, [
          { scope: 'public', time: 1_000 },
          { scope: 'private', time: 2_000 },
          { scope: 'public', time: 3_000 },
        ]),
      ),
    );
    const [posts, media, locations] = made as [string[], string[], string[]];
    expect(await itemsOf({ since_time: 2, until_time: 3 })).toEqual([posts[1], media[1], locations[1]].sort());
    expect(await itemsOf({ since_time: 2 }, ['posts'])).toEqual([posts[1], posts[2]].sort());
    expect(await itemsOf({ scope: 'public' }, ['media', 'locations'])).toEqual(
      [media[0], media[2], locations[0], locations[2]].sort(),
    );
    expect(await itemsOf({ scope: 'private' })).toEqual([posts[1], media[1], locations[1]].sort());
    // The collection window narrows the view's own, never widens it.
    const view = await create({ name: 'w', filters: { until_time: 2.5 } }, token);
    const page = await get(`/views/${view.id}?since_time=1.5&until_time=10`, token);
    expect(itemIds(page.json<ViewBody>()).sort()).toEqual([posts[1], media[1], locations[1]].sort());
    await t.database.db.deleteFrom('posts').where('user_id', '=', user.id).execute();
    await t.database.db.deleteFrom('media').where('user_id', '=', user.id).execute();
    await t.database.db.deleteFrom('locations').where('user_id', '=', user.id).execute();
  });

  it('bbox, sources, text', async () => {
    const db = t.database.db;
    const [inside, outside, nowhere] = await insertItems(t.database, 'posts', user.id, [
      { time: 1_000, lat: 52.5, lon: 13.4 },
      { time: 2_000, lat: 48.1, lon: 11.6 },
      { time: 3_000 },
    ]);
    const [point] = await insertItems(t.database, 'locations', user.id, [{ time: 4_000, lat: 52.4, lon: 13.1 }]);
    const [far] = await insertItems(t.database, 'locations', user.id, [{ time: 4_500, lat: -33.9, lon: 151.2 }]);
    const [photo] = await insertItems(t.database, 'media', user.id, [{ time: 5_000 }]);
    await db.updateTable('posts').set({ text: 'Hello 100% Berlin_trip' }).where('id', '=', inside!).execute();
    await db.updateTable('posts').set({ text: 'Munich', source: 'svc-a' }).where('id', '=', outside!).execute();
    await db
      .updateTable('media')
      .set({ caption: 'berlin at night', source: 'svc-b' })
      .where('id', '=', photo!)
      .execute();
    await db.updateTable('locations').set({ source: 'svc-a' }).where('id', '=', point!).execute();

    expect(await itemsOf({ bbox: [13, 52, 14, 53] })).toEqual([inside, point].sort());
    // Crossing the antimeridian: from 150°E to 10°W, the long way round.
    expect(await itemsOf({ bbox: [150, -40, -10, 60] })).toEqual([far].sort());
    expect(await itemsOf({ sources: ['svc-a'] })).toEqual([outside, point].sort());
    expect(await itemsOf({ sources: ['svc-a', 'svc-b'] })).toEqual([outside, point, photo].sort());
    expect(await itemsOf({ text: 'BERLIN' })).toEqual([inside, photo].sort());
    expect(await itemsOf({ text: '100%' })).toEqual([inside].sort());
    expect(await itemsOf({ text: '0% B' })).toEqual([inside].sort());
    expect(await itemsOf({ text: 'n_t' })).toEqual([inside].sort());
    expect(await itemsOf({ text: 'n%t' })).toEqual([]);
    expect(await itemsOf({ text: 'berlin', sources: ['svc-b'] })).toEqual([photo].sort());
    expect(nowhere).toBeDefined();
  });
});

describe('bbox and public precision', () => {
  it('a public point is judged where it is served (rounded), a private one where it is', async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['get_views', 'manage_views', 'get_private_scope']);
    // Default precision 1000 m: a latitude 0.4 of a grid step above a grid line is served on the line.
    const step = 1000 / 111_320;
    const lat = step * (5844 + 0.4);
    expect(roundPoint(lat, 13.5, 1000).lat).toBeLessThan(lat - 0.001);
    const [pub] = await insertItems(t.database, 'locations', user.id, [{ scope: 'public', time: 1, lat, lon: 13.5 }]);
    const [priv] = await insertItems(t.database, 'locations', user.id, [{ scope: 'private', time: 2, lat, lon: 13.5 }]);
    const [seen] = await insertItems(t.database, 'locations', user.id, [
      { scope: 'public', time: 3, lat: 53, lon: 13.5 },
    ]);
    const bbox = [13, lat - 0.001, 14, 54];
    const read = async (scope: string) => {
      const view = await create({ name: 'box', kinds: ['locations'], filters: { bbox }, scope }, token);
      return itemIds((await get(`/views/${view.id}`, token)).json<ViewBody>()).sort();
    };
    expect(await read('public')).toEqual([seen]);
    expect(await read('private')).toEqual([priv, seen].sort());
    expect(pub).toBeDefined();
  });
});

describe('merged paging across the three kinds', () => {
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let token: string;
  const start: { id: string; time: number }[] = [];

  beforeAll(async () => {
    user = await createTestUser(t.database);
    token = await tokenFor(t, user, ['get_views', 'manage_views', 'get_private_scope']);
    for (const kind of KINDS) {
      // Times repeat within and across kinds, so the id must break ties the same way everywhere.
      const seeds = Array.from({ length: 20 }, (_, i) => ({
        time: 100_000 + Math.floor(i / 3) * 1000,
        scope: i % 4 === 0 ? ('private' as const) : ('public' as const),
      }));
      const made = await insertItems(t.database, kind, user.id, seeds);
      made.forEach((id, i) => start.push({ id, time: seeds[i]!.time }));
    }
  });

  const sortKeys = (keys: { id: string; time: number }[], order: 'asc' | 'desc') =>
    [...keys].sort((a, b) => {
      const byKey = a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      return order === 'asc' ? byKey : -byKey;
    });

  it.each(['desc', 'asc'] as const)(
    '%s: every item exactly once, in order, following Link, with inserts between pages',
    async (order) => {
      const view = await create({ name: `paging ${order}` }, token);
      const behind: string[] = [];
      const ahead: { id: string; time: number }[] = [];
      const seen: { id: string; time: number }[] = [];
      let url: string | undefined = `/views/${view.id}?count=7&order=${order}`;
      let pages = 0;
      try {
        while (url) {
          const response = await get(url, token);
          expect(response.statusCode).toBe(200);
          const page = response.json<ViewBody>().items;
          expect(page.length).toBeLessThanOrEqual(7);
          seen.push(...page.map((entry) => ({ id: entry.item.id, time: entry.item.time * 1000 })));
          pages += 1;
          const link = response.headers.link as string | undefined;
          url = nextUrl(link);
          if (url) {
            expect(link).toContain(`order=${order}`);
            expect(link).toContain('count=7');
            // One item behind the cursor (never shown now), one ahead of it (shown once, in its place).
            const last = seen.at(-1)!;
            const kind = KINDS[pages % 3]!;
            const before = order === 'desc' ? last.time + 500 : last.time - 500;
            const after = order === 'desc' ? 50_000 - pages : 200_000 + pages;
            const [b] = await insertItems(t.database, kind, user.id, [{ time: before, lat: pages, lon: 1 }]);
            const [a] = await insertItems(t.database, kind, user.id, [{ time: after, lat: pages, lon: 2 }]);
            behind.push(b!);
            ahead.push({ id: a!, time: after });
          }
        }
        const expected = sortKeys([...start, ...ahead], order).map((key) => key.id);
        expect(seen.map((key) => key.id)).toEqual(expected);
        expect(new Set(seen.map((key) => key.id)).size).toBe(seen.length);
        for (const id of behind) expect(seen.map((key) => key.id)).not.toContain(id);
        expect(pages).toBeGreaterThan(8);
      } finally {
        // Clean up what this order added, so the other order starts from the same items.
        const added = [...behind, ...ahead.map((a) => a.id)];
        for (const kind of added.length > 0 ? KINDS : []) {
          await t.database.db.deleteFrom(kind).where('id', 'in', added).execute();
        }
      }
    },
  );

  it('a page of exactly the remaining items has no Link', async () => {
    const view = await create({ name: 'exact' }, token);
    const response = await get(`/views/${view.id}?count=60`, token);
    expect(response.json<ViewBody>().items).toHaveLength(60);
    expect(response.headers.link).toBeUndefined();
    const short = await get(`/views/${view.id}?count=59`, token);
    expect(short.headers.link).toMatch(
      /^<http:\/\/waypost\.test\/views\/[0-9A-Z]+\?count=59&cursor=[\w.-]+>; rel="next"$/,
    );
  });

  it('a public view pages through public items only', async () => {
    const view = await create({ name: 'public paging', scope: 'public' }, token);
    const seen: string[] = [];
    let url: string | undefined = `/views/${view.id}?count=4`;
    while (url) {
      const response = await get(url);
      const body = response.json<ViewBody>();
      expect(body.items.every((entry) => entry.item.scope === 'public')).toBe(true);
      seen.push(...itemIds(body));
      const link = response.headers.link as string | undefined;
      url = link
        ? new URL(/^<([^>]+)>/.exec(link)![1]!).pathname + new URL(/^<([^>]+)>/.exec(link)![1]!).search
        : undefined;
    }
    expect(seen).toHaveLength(45);
    expect(new Set(seen).size).toBe(45);
  });
});

describe('in a browser', () => {
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const open = (url: string, accept: string | undefined, token?: string) =>
    t.app.inject({ method: 'GET', url, headers: { ...headers(token), ...(accept ? { accept } : {}) } });

  it('answers a browser with a page of the same public items, and apps with the JSON', async () => {
    const made = await post('/views', { name: 'Shared <walks>', description: 'For friends', scope: 'public' });
    expect(made.statusCode).toBe(201);
    const { id } = made.json<ViewBody>();

    const page = await open(`/views/${id}`, BROWSER);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers.vary).toContain('Accept');
    expect(page.body).toContain('<h1>Shared &lt;walks&gt;</h1>');
    expect(page.body).toContain('For friends');
    expect(page.body).toContain('<div class="text">post 0</div>');
    expect(page.body).toContain('<div class="text">post 2</div>');
    expect(page.body).not.toContain('<div class="text">post 1</div>'); // the private post
    expect(page.body).not.toContain('<script>'); // no inline script under the CSP

    for (const accept of ['application/json', '*/*', undefined, 'text/html;q=0.5, application/json']) {
      const json = await open(`/views/${id}`, accept);
      expect(json.statusCode, String(accept)).toBe(200);
      expect(json.headers['content-type'], String(accept)).toBe('application/json; charset=utf-8');
      expect(
        json
          .json<ViewBody>()
          .items.map((entry) => entry.item.id)
          .sort(),
      ).toEqual(KINDS.flatMap((kind) => ids[kind].public).sort());
    }
  });

  it("shows the page's times on the owner's clock, naming the zone", async () => {
    await updateSettings(t.database.db, owner.id, { timezone: 'Asia/Tokyo' });
    const made = await post('/views', { name: 'Clock', scope: 'public' });
    const page = await open(`/views/${made.json<ViewBody>().id}`, BROWSER);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Times are in Asia/Tokyo, viewer's time zone.");
    // Post 0 at 10 s after the epoch: 09:00 in Tokyo, never the UTC clock.
    expect(page.body).toContain('<time datetime="1970-01-01T00:00:10.000Z">1 Jan 1970, 09:00 GMT+9</time>');
    expect(page.body).not.toContain('00:00 UTC');
  });

  it('shows refusals as pages with the same statuses', async () => {
    const secret = await post('/views', { name: 'Mine only' });
    const { id } = secret.json<ViewBody>();
    const stranger = await open(`/views/${id}`, BROWSER);
    expect(stranger.statusCode).toBe(401);
    expect(stranger.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(stranger.body).toContain('This view is private');
    const missing = await open(`/views/${newId()}`, BROWSER);
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('<h1>Not found</h1>');
    const foreign = await open(`/views/${id}`, BROWSER, tok.other);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toBe(missing.body);
    const owners = await open(`/views/${id}`, BROWSER, tok.all);
    expect(owners.statusCode).toBe(200);
    expect(owners.body).toContain('<div class="text">post 1</div>');
    const badCursor = await open(`/views/${id}?cursor=nonsense`, BROWSER, tok.all);
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe('no input makes a 5xx', () => {
  it('every class of body of POST /views and POST /views/<id>, and of query of GET /views/<id>, gets its exact answer', async () => {
    const view = await create({ name: 'target' });
    const KNOWN = ['name', 'description', 'kinds', 'filters', 'scope'];
    const name = fc.string({ minLength: 1, maxLength: 50 }).filter((n) => n.trim().length > 0);
    const viewInvalid = (path: string, message: string) =>
      refused(`The view is invalid: ${path} ${message}.`, [{ path, message }]);
    type Case = { update: boolean; body: unknown };
    const both = (body: fc.Arbitrary<unknown>) =>
      fc.tuple(fc.boolean(), body).map(([update, b]) => ({ update, body: b }));
    const classes: InputClass<Case>[] = [
      { name: 'not an object', inputs: both(notAnObject), answer: () => invalid(['body', 'must be object']) },
      {
        name: 'no name (creating)',
        inputs: fc.constant({ update: false, body: { description: 'd' } }),
        answer: () => invalid(['body/name', 'is required']),
      },
      {
        name: 'a name that is not a string',
        inputs: both(notAString.map((n) => ({ name: n }))),
        answer: () => invalid(['body/name', 'must be string']),
      },
      {
        name: 'a blank name',
        inputs: both(blank.map((n) => ({ name: n }))),
        answer: () => viewInvalid('body/name', 'must not be blank'),
      },
      {
        name: 'an unknown field',
        inputs: both(unknownField(KNOWN).map((field) => ({ name: 'n', [field]: 1 }))),
        answer: ({ body }) => invalid([`body/${Object.keys(body as object)[1]!}`, 'is not a known field']),
      },
      {
        name: 'an unknown filter',
        inputs: both(
          unknownField(['since_time', 'until_time', 'bbox', 'scope', 'sources', 'text']).map((f) => ({
            name: 'n',
            filters: { [f]: 1 },
          })),
        ),
        answer: ({ body }) =>
          invalid([`body/filters/${Object.keys((body as { filters: object }).filters)[0]!}`, 'is not a known field']),
      },
      {
        name: 'a time range that ends before it starts',
        inputs: both(
          fc
            .tuple(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 1e6 }))
            .map(([until, gap]) => ({ name: 'n', filters: { since_time: until + gap, until_time: until } })),
        ),
        answer: () => viewInvalid('body/filters/until_time', 'must be after since_time'),
      },
      {
        name: 'a public view filtering for private items',
        inputs: both(fc.constant({ name: 'n', scope: 'public', filters: { scope: 'private' } })),
        answer: () => viewInvalid('body/filters/scope', 'a public view only ever shows public items'),
      },
      {
        name: 'a valid view',
        inputs: both(name.map((n) => ({ name: n }))),
        answer: ({ update, body }) => ({
          status: update ? 200 : 201,
          check: (answer) => expect(answer).toMatchObject({ name: (body as { name: string }).name.trim() }),
        }),
      },
    ];
    await fc.assert(
      fc.asyncProperty(byClass(classes), async ({ name: className, input, answer }) => {
        const response = await t.app.inject({
          method: 'POST',
          url: input.update ? `/views/${view.id}` : '/views',
          headers: { ...headers(tok.all), 'content-type': 'application/json' },
          payload: JSON.stringify(input.body),
        });
        expectAnswer(className, input, response, answer);
        // Keep under the per-person limit of views.
        if (response.statusCode === 201)
          expect((await del(`/views/${response.json<ViewBody>().id}`)).statusCode).toBe(204);
      }),
      { numRuns: 200 },
    );

    const queryClasses: InputClass<[string, string][]>[] = [
      {
        name: 'an unknown parameter',
        inputs: unknownField(['count', 'order', 'cursor', 'since_time', 'until_time']).map((n) => [[n, '1']]),
        answer: (pairs) => invalid([`querystring/${pairs[0]![0]}`, 'is not a known field']),
      },
      ...PAGING_CLASSES,
      {
        name: 'valid paging',
        inputs: fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.constantFrom('asc', 'desc')).map(([count, order]) => [
          ['count', String(count)],
          ['order', order],
        ]),
        answer: (pairs) => ({
          status: 200,
          check: (body) => expect((body as ViewBody).items.length).toBeLessThanOrEqual(Number(pairs[0]![1])),
        }),
      },
    ];
    await fc.assert(
      fc.asyncProperty(byClass(queryClasses), async ({ name: className, input, answer }) => {
        const response = await get(`/views/${view.id}?${new URLSearchParams(input).toString()}`, tok.all);
        expectAnswer(className, input, response, answer);
      }),
      { numRuns: 150 },
    );
  });
});
