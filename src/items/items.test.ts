// What the three kinds share, through HTTP with real tokens: the access matrix of docs/api.md
// "Scopes and access", keyset paging, the time window, and bad parameters.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems, KINDS, type Kind } from '../../test/items.ts';
import { byClass, expectAnswer, invalid, PAGING_CLASSES, unknownField, type InputClass } from '../../test/fuzz.ts';
import { tokenFor } from '../../test/tokens.ts';
import { newId } from '../lib/ids.ts';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createTestUser>>;
let other: Awaited<ReturnType<typeof createTestUser>>;
const tokens: Record<string, string | undefined> = {};
const items: Record<Kind, { public: string; private: string }> = {} as never;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createTestUser(t.database, { username: 'owner' });
  other = await createTestUser(t.database, { username: 'other' });
  tokens.none = undefined;
  tokens.other = await tokenFor(t, other, ['get_private_scope', 'create_post', 'upload_media', 'write_locations']);
  tokens.ownerBare = await tokenFor(t, owner, []);
  tokens.ownerPrivate = await tokenFor(t, owner, ['get_private_scope']);
  for (const kind of KINDS) {
    const [pub, priv] = await insertItems(t.database, kind, owner.id, [
      { scope: 'public', time: 1_000 },
      { scope: 'private', time: 2_000 },
    ]);
    items[kind] = { public: pub!, private: priv! };
  }
});
afterAll(() => t.close());

const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url,
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

const REALM = 'Bearer realm="waypost"';
// The exact problem documents of the access matrix.
const UNAUTHORIZED = {
  type: 'urn:waypost:problem:unauthorized',
  title: 'Unauthorized',
  status: 401,
  detail: 'This needs an access token: send it as Authorization: Bearer <token>.',
  code: 'unauthorized',
};
const INSUFFICIENT_BODY = {
  type: 'urn:waypost:problem:insufficient_scope',
  title: 'Unauthorized',
  status: 401,
  detail: 'The access token lacks the permission get_private_scope.',
  code: 'insufficient_scope',
};
const NOT_FOUND: Record<Kind, object> = Object.fromEntries(
  (['posts', 'media', 'locations'] as const).map((kind) => [
    kind,
    {
      type: 'urn:waypost:problem:not_found',
      title: 'Not Found',
      status: 404,
      detail: { posts: 'No such post.', media: 'No such medium.', locations: 'No such location.' }[kind],
      code: 'not_found',
    },
  ]),
) as Record<Kind, object>;
const INSUFFICIENT = 'Bearer realm="waypost", error="insufficient_scope", scope="get_private_scope"';

describe.each(KINDS)('access to %s by id', (kind) => {
  const url = (id: string) => `/${kind}/id/${id}`;

  it('public item: 200 for everyone, the same object (a point: exact for the owner with get_private_scope)', async () => {
    const bodies: unknown[] = [];
    for (const who of ['none', 'other', 'ownerBare', 'ownerPrivate']) {
      const response = await get(url(items[kind].public), tokens[who]);
      expect(response.statusCode, who).toBe(200);
      bodies.push(response.json());
    }
    // The owner's token also sees a post's deliveries (docs/api.md "Objects"); a point's place
    // and measurements are exact for the owner reading with get_private_scope, and a medium's
    // hash and size are its original's for the owner, its public copy's for others
    // (docs/privacy.md); otherwise the same object.
    const placeFields = kind === 'locations' ? ['lat', 'lon', 'alt', 'accuracy', 'speed', 'heading', 'source'] : [];
    const shared = bodies.map((body) => {
      const { deliveries: _own, sha256: _hash, size: _size, ...rest } = body as Record<string, unknown>;
      for (const field of placeFields) delete rest[field];
      return JSON.stringify(rest);
    });
    expect(shared.every((body) => body === shared[0])).toBe(true);
    if (kind === 'locations') expect([bodies[1], bodies[2]]).toEqual([bodies[0], bodies[0]]);
    if (kind === 'posts')
      expect(bodies.map((body) => 'deliveries' in (body as object))).toEqual([false, false, true, true]);
    if (kind === 'media') {
      const hashes = bodies.map((body) => (body as { sha256: unknown }).sha256);
      expect(hashes).toEqual([null, null, expect.any(String), expect.any(String)]);
    }
    expect(bodies[0]).toMatchObject({ id: items[kind].public, username: 'owner', scope: 'public', time: 1 });
  });

  it('private item: 401 without token, 401 insufficient_scope for the owner without permission, 200 with it', async () => {
    const anonymous = await get(url(items[kind].private));
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(REALM);
    expect(anonymous.json()).toEqual(UNAUTHORIZED);

    const bare = await get(url(items[kind].private), tokens.ownerBare);
    expect(bare.statusCode).toBe(401);
    expect(bare.headers['www-authenticate']).toBe(INSUFFICIENT);
    expect(bare.json()).toEqual(INSUFFICIENT_BODY);

    const allowed = await get(url(items[kind].private), tokens.ownerPrivate);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json()).toMatchObject({ id: items[kind].private, scope: 'private', username: 'owner', time: 2 });
  });

  it("another user's private item is 404, byte-identical to a missing id apart from the request id", async () => {
    const foreign = await get(url(items[kind].private), tokens.other);
    const missing = await get(url(newId()), tokens.other);
    const anonymousMissing = await get(url(newId()));
    for (const response of [foreign, missing, anonymousMissing]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(NOT_FOUND[kind]);
    }
    expect(foreign.body).toBe(missing.body);
    expect(anonymousMissing.body).toBe(missing.body);
    const strip = (headers: Record<string, unknown>) => {
      const { 'x-request-id': _id, date: _date, ...rest } = headers;
      return rest;
    };
    expect(strip(foreign.headers)).toEqual(strip(missing.headers));
  });

  it('a missing id is 404 for every caller', async () => {
    for (const who of ['none', 'other', 'ownerBare', 'ownerPrivate']) {
      const response = await get(url(newId()), tokens[who]);
      expect(response.statusCode, who).toBe(404);
      expect(response.json(), who).toEqual(NOT_FOUND[kind]);
    }
  });
});

describe.each(KINDS)('collections of %s', (kind) => {
  const ids = (response: { json: () => unknown }) => (response.json() as { id: string }[]).map((item) => item.id);

  it("/private: 401 without token or permission; the token owner's private items with it", async () => {
    const anonymous = await get(`/${kind}/private`);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(REALM);
    expect(anonymous.json()).toEqual(UNAUTHORIZED);
    const bare = await get(`/${kind}/private`, tokens.ownerBare);
    expect(bare.statusCode).toBe(401);
    expect(bare.headers['www-authenticate']).toBe(INSUFFICIENT);
    expect(bare.json()).toEqual(INSUFFICIENT_BODY);
    const mine = await get(`/${kind}/private`, tokens.ownerPrivate);
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ids(mine)).toEqual([items[kind].private]);
    const theirs = await get(`/${kind}/private`, tokens.other);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json()).toEqual([]);
  });

  it("/public: needs a token and no permission; the token owner's public items", async () => {
    const anonymous = await get(`/${kind}/public`);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(REALM);
    expect(anonymous.json()).toEqual(UNAUTHORIZED);
    for (const who of ['ownerBare', 'ownerPrivate']) {
      const response = await get(`/${kind}/public`, tokens[who]);
      expect(response.statusCode).toBe(200);
      expect(ids(response)).toEqual([items[kind].public]);
    }
    expect((await get(`/${kind}/public`, tokens.other)).json()).toEqual([]);
    const invalid = await get(`/${kind}/public`, 'not-a-real-token');
    expect(invalid.statusCode).toBe(401);
    expect(invalid.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('/public/<username>: anyone, public items only, the same objects as by id; unknown user 404', async () => {
    const byId = (await get(`/${kind}/id/${items[kind].public}`)).json<unknown>();
    for (const who of ['none', 'other', 'ownerPrivate']) {
      const response = await get(`/${kind}/public/OWNER`, tokens[who]);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual([byId]);
    }
    const unknown = await get(`/${kind}/public/nobody_here`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, code: 'not_found', detail: 'There is no user "nobody_here".' });
  });

  it('bad collection parameters are 400 with the reason', async () => {
    const cases: [string, string][] = [
      ['count=0', 'querystring/count'],
      ['count=1001', 'querystring/count'],
      ['count=abc', 'querystring/count'],
      ['count=1.5', 'querystring/count'],
      ['since_time=abc', 'querystring/since_time'],
      ['since_time=1e300', 'querystring/since_time'],
      ['since_time=1e400', 'querystring/since_time'],
      ['count=1e400', 'querystring/count'],
      ['until_time=-1e400', 'querystring/until_time'],
      ['until_time=x', 'querystring/until_time'],
      ['since_time=', 'querystring/since_time'],
      ['count=', 'querystring/count'],
      ['order=sideways', 'querystring/order'],
      ['cursor=%21%21', 'querystring/cursor'],
      [`cursor=${Buffer.from('[1,2]').toString('base64url')}`, 'querystring/cursor'],
      ['colour=red', 'querystring/colour'],
    ];
    for (const [query, path] of cases) {
      const response = await get(`/${kind}/public/owner?${query}`);
      expect(response.statusCode, query).toBe(400);
      const body = response.json<{ errors: { path: string }[]; detail: string }>();
      expect(
        body.errors.map((e) => e.path),
        query,
      ).toContain(path);
      expect(body.detail.length).toBeGreaterThan(10);
    }
  });
});

describe('paging', () => {
  let pager: Awaited<ReturnType<typeof createTestUser>>;
  beforeAll(async () => {
    pager = await createTestUser(t.database, { username: 'pager' });
  });
  afterEach(async () => {
    await t.database.db.deleteFrom('posts').where('user_id', '=', pager.id).execute();
  });

  type Item = { id: string; time: number };
  async function walk(order: 'asc' | 'desc', onPage: (page: Item[]) => Promise<void>) {
    const seen: Item[] = [];
    let url: string | undefined = `/posts/public/pager?count=7&order=${order}`;
    for (let pages = 0; url && pages < 100; pages += 1) {
      const response = await get(url);
      expect(response.statusCode).toBe(200);
      const page = response.json<Item[]>();
      seen.push(...page);
      const link = response.headers.link as string | undefined;
      if (link === undefined) break;
      await onPage(page);
      const match = /^<([^>]+)>; rel="next"$/.exec(link);
      expect(match).not.toBeNull();
      const next = new URL(match![1]!);
      expect(next.origin).toBe('http://waypost.test');
      expect(next.searchParams.get('order')).toBe(order);
      url = next.pathname + next.search;
    }
    return seen;
  }

  const key = (item: Item) => [item.time, item.id] as const;
  const before = (a: Item, b: Item) => key(a)[0] < key(b)[0] || (key(a)[0] === key(b)[0] && a.id < b.id);

  it.each(['desc', 'asc'] as const)(
    'a %s walk returns every item once, in order, while items are added between pages',
    async (order) => {
      // Times with ties, so the id decides the order inside one millisecond.
      const seeds = Array.from({ length: 60 }, (_, i) => ({ time: 10_000 + Math.floor(i / 3) * 10 }));
      const original = await insertItems(t.database, 'posts', pager.id, seeds);
      const inserted: { id: string; ahead: boolean }[] = [];
      let round = 0;
      const seen = await walk(order, async (page) => {
        const last = page.at(-1);
        if (!last) return;
        round += 1;
        // One item the walk has passed, one still ahead of it.
        const lastMs = Math.round(last.time * 1000);
        const passed = order === 'desc' ? lastMs + 5 : lastMs - 5;
        const ahead = order === 'desc' ? lastMs - 5 : lastMs + 5;
        const [p, a] = await insertItems(t.database, 'posts', pager.id, [{ time: passed }, { time: ahead }]);
        inserted.push({ id: p!, ahead: false }, { id: a!, ahead: true });
        expect(round).toBeLessThan(50);
      });
      const ids = seen.map((item) => item.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (let i = 1; i < seen.length; i += 1) {
        const inOrder = order === 'asc' ? before(seen[i - 1]!, seen[i]!) : before(seen[i]!, seen[i - 1]!);
        expect(inOrder).toBe(true);
      }
      for (const id of original) expect(ids).toContain(id);
      for (const item of inserted) expect(ids.includes(item.id), `${item.id} ahead=${item.ahead}`).toBe(item.ahead);
    },
  );

  it('no Link header on the last page, and a full last page does not announce an empty one', async () => {
    await insertItems(t.database, 'posts', pager.id, [{ time: 1 }, { time: 2 }, { time: 3 }, { time: 4 }]);
    const first = await get('/posts/public/pager?count=2');
    expect(first.headers.link).toBeDefined();
    const next = new URL(/<([^>]+)>/.exec(first.headers.link as string)![1]!);
    const second = await get(next.pathname + next.search);
    expect(second.json<Item[]>().length).toBe(2);
    expect(second.headers.link).toBeUndefined();
  });

  it('since_time is inclusive and until_time exclusive, to the millisecond', async () => {
    const [a, b, c] = await insertItems(t.database, 'posts', pager.id, [
      { time: 1_000 },
      { time: 2_000 },
      { time: 3_000 },
    ]);
    const ids = async (query: string) =>
      (await get(`/posts/public/pager?order=asc&${query}`)).json<Item[]>().map((item) => item.id);
    expect(await ids('since_time=2')).toEqual([b, c]);
    expect(await ids('since_time=1.999')).toEqual([b, c]);
    expect(await ids('since_time=2.001')).toEqual([c]);
    expect(await ids('until_time=3')).toEqual([a, b]);
    expect(await ids('until_time=3.001')).toEqual([a, b, c]);
    expect(await ids('until_time=2')).toEqual([a]);
    expect(await ids('since_time=2&until_time=3')).toEqual([b]);
    expect(await ids('since_time=3&until_time=2')).toEqual([]);
  });
});

describe('no input makes a 5xx', () => {
  const paths = [
    '/posts/public/owner',
    '/media/public/owner',
    '/locations/public/owner',
    '/posts/private',
    '/locations/public',
  ];
  const KNOWN = ['count', 'since_time', 'until_time', 'order', 'cursor', 'bbox', 'format', 'all', 'zoom'];

  it('every class of query string on the collections gets its exact answer', async () => {
    const classes: InputClass<[string, string][]>[] = [
      {
        name: 'an unknown parameter',
        inputs: fc.tuple(unknownField(KNOWN), fc.string({ maxLength: 10 })).map(([n, v]) => [[n, v]]),
        answer: (pairs) => invalid([`querystring/${pairs[0]![0]}`, 'is not a known field']),
      },
      ...PAGING_CLASSES,
      {
        name: 'a time that is not a number',
        inputs: fc
          .tuple(fc.constantFrom('since_time', 'until_time'), fc.stringMatching(/^[a-z]{1,8}$/))
          .map(([n, v]) => [[n, v]]),
        answer: (pairs) => invalid([`querystring/${pairs[0]![0]}`, 'must be number']),
      },
      {
        name: 'valid paging',
        inputs: fc
          .tuple(fc.integer({ min: 1, max: 1000 }), fc.constantFrom('asc', 'desc'), fc.integer({ min: 0, max: 1e9 }))
          .map(([count, order, since]) => [
            ['count', String(count)],
            ['order', order],
            ['since_time', String(since)],
          ]),
        answer: (pairs) => ({
          status: 200,
          check: (body) => expect((body as unknown[]).length).toBeLessThanOrEqual(Number(pairs[0]![1])),
        }),
      },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), byClass(classes), async (path, { name, input, answer }) => {
        const response = await get(`${path}?${new URLSearchParams(input).toString()}`, tokens.ownerPrivate);
        expectAnswer(`${path}, ${name}`, input, response, answer);
      }),
      { numRuns: 200 },
    );
  });

  it('an id that does not exist is the same 404 for every string', async () => {
    const NOUN: Record<Kind, string> = { posts: 'post', media: 'medium', locations: 'location' };
    const id = fc.string({ minLength: 1, maxLength: 30 }).filter((v) => v !== '.' && v !== '..');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...KINDS), id, async (kind, value) => {
        const response = await get(`/${kind}/id/${encodeURIComponent(value)}`, tokens.ownerPrivate);
        expectAnswer(kind, value, response, {
          status: 404,
          body: {
            type: 'urn:waypost:problem:not_found',
            title: 'Not Found',
            status: 404,
            detail: `No such ${NOUN[kind]}.`,
            code: 'not_found',
          },
        });
      }),
      { numRuns: 100 },
    );
  });
});
