// Cursors are the server's own (docs/api.md "Collections"): every route that takes `cursor`
// refuses one it did not make, made-up keys and other servers' cursors included, with 400
// `invalid_cursor`; the cursors in `Link` still page through every item exactly once.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { cursorsFor } from './cursors.ts';

let t: TestApp;
let token: string;
let viewId: string;
let username: string;

beforeAll(async () => {
  t = await buildTestApp();
  const user = await createTestUser(t.database);
  username = user.username;
  token = await tokenFor(t, user, ['get_private_scope', 'manage_views', 'get_views']);
  for (const kind of ['posts', 'media', 'locations'] as const) {
    await insertItems(
      t.database,
      kind,
      user.id,
      Array.from({ length: 5 }, (_, i) => ({ scope: 'public' as const, time: 1_700_000_000_000 + i * 1000 })),
    );
  }
  const view = await t.app.inject({
    method: 'POST',
    url: '/views',
    headers: { authorization: `Bearer ${token}` },
    payload: { name: 'all', kinds: ['posts', 'media', 'locations'], scope: 'public' },
  });
  viewId = view.json<{ id: string }>().id;
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

/** Every JSON route that takes a cursor. */
const routes = () => [
  `/posts/public/${username}`,
  '/posts/private',
  '/posts/public',
  `/media/public/${username}`,
  `/locations/public/${username}`,
  `/posts/public/${username}?format=atom`,
  `/views/${viewId}`,
];

const REFUSED = {
  type: 'urn:waypost:problem:invalid_cursor',
  code: 'invalid_cursor',
  title: 'Bad Request',
  status: 400,
  detail: 'The cursor is not one this server made; take it from the Link header.',
  errors: [{ path: 'querystring/cursor', message: 'is not a cursor this server made' }],
};

async function expectRefused(cursor: string) {
  for (const route of routes()) {
    const url = `${route}${route.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
    const response = await get(url);
    expect([url, response.statusCode, response.headers['content-type']]).toEqual([
      url,
      400,
      'application/problem+json; charset=utf-8',
    ]);
    expect(response.json()).toEqual(REFUSED);
  }
  const page = await t.app.inject({ method: 'GET', url: `/@${username}?cursor=${encodeURIComponent(cursor)}` });
  expect(page.statusCode).toBe(400);
  expect(page.body).toContain('was not made by this server');
}

/** The cursor of the next page, from the `Link` header. */
function nextCursor(link: string | string[] | number | undefined): string | undefined {
  const href = /^<([^>]+)>; rel="next"$/.exec(String(link ?? ''))?.[1];
  return href ? (new URL(href).searchParams.get('cursor') ?? undefined) : undefined;
}

describe('a cursor this server did not make is 400 invalid_cursor', () => {
  it('a made-up key of the right shape, with or without a made-up signature', async () => {
    const key = Buffer.from(JSON.stringify([1_700_000_002_000, '01HZ0000000000000000000000'])).toString('base64url');
    await expectRefused(key);
    await expectRefused(`${key}.${'A'.repeat(22)}`);
  });

  it("another server's cursor (another secret key), and a real cursor changed by one character", async () => {
    await expectRefused(cursorsFor(randomBytes(32)).encode({ time: 1_700_000_002_000, id: 'x' }));
    const real = nextCursor((await get(`/posts/public/${username}?count=2`)).headers.link)!;
    const flipped = real.slice(0, 3) + (real[3] === 'A' ? 'B' : 'A') + real.slice(4);
    await expectRefused(flipped);
  });

  it('random strings (fast-check)', async () => {
    // Without U+0000, which every route refuses before any parameter is read (src/http/nul.ts).
    const strings = fc.string({ minLength: 0, maxLength: 300, unit: 'binary' }).filter((s) => !s.includes('\0'));
    await fc.assert(
      fc.asyncProperty(strings, async (cursor) => {
        const response = await get(`/posts/public/${username}?cursor=${encodeURIComponent(cursor)}`);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual(REFUSED);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the cursors in Link still page', () => {
  it('through every route, each item once', async () => {
    for (const [route, total] of [
      [`/posts/public/${username}`, 5],
      ['/posts/private', 0],
      [`/media/public/${username}`, 5],
      [`/locations/public/${username}`, 5],
      [`/views/${viewId}`, 15],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 20; pages += 1) {
        const response = await get(`${route}?count=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(response.statusCode, route).toBe(200);
        const body = response.json<{ id: string }[] | { items: { item: { id: string } }[] }>();
        seen.push(...(Array.isArray(body) ? body.map((item) => item.id) : body.items.map((entry) => entry.item.id)));
        cursor = nextCursor(response.headers.link);
        if (!cursor) break;
      }
      expect([route, seen.length, new Set(seen).size]).toEqual([route, total, total]);
    }
  });
});
