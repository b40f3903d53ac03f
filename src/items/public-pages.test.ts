// Public pages for anyone: a weak ETag per version, 304, copies kept in memory and replayed
// before routing, and never a page older than what the database says (src/items/public-pages.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { noneMatch } from './conditional.ts';
import { PageCache } from './public-pages.ts';

type Listening = Awaited<ReturnType<typeof listeningTestApp>>;

const texts = (body: unknown) => (body as { text: string }[]).map((post) => post.text);

describe('public pages, asking the database every time (revalidate 0)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { WAYPOST_PUBLIC_CACHE_REVALIDATE_MS: '0' } });
  });
  afterAll(() => t.close());

  it('carry a weak ETag; If-None-Match with it is 304 until an item changes, however it was written', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    const url = `/posts/public/${user.username}`;
    const first = await t.app.inject({ method: 'GET', url });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, no-cache');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);

    const same = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers.etag).toBe(etag);

    // Straight into the database, as another process would: no in-process signal at all.
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public', time: 1_800_000_000_000 }]);
    const changed = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json()).toHaveLength(2);
  });

  it('keep their ETag when the person writes something private', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    const url = `/posts/public/${user.username}`;
    const etag = (await t.app.inject({ method: 'GET', url })).headers.etag;
    await insertItems(t.database, 'posts', user.id, [{ scope: 'private' }]);
    await insertItems(t.database, 'locations', user.id, [{ scope: 'private' }]);
    expect((await t.app.inject({ method: 'GET', url })).headers.etag).toBe(etag);
  });

  it('vary on Accept as well as whatever else the response already varies on', async () => {
    const user = await createTestUser(t.database);
    const response = await t.app.inject({
      method: 'GET',
      url: `/posts/public/${user.username}`,
      headers: { origin: 'https://elsewhere.example' },
    });
    const vary = String(response.headers.vary).split(', ');
    expect(vary).toContain('Accept');
    expect(new Set(vary).size).toBe(vary.length);
  });

  it('are another page for another query or Accept, and never show private items', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }, { scope: 'private' }]);
    const url = `/posts/public/${user.username}`;
    const json = await t.app.inject({ method: 'GET', url });
    const atom = await t.app.inject({ method: 'GET', url, headers: { accept: 'application/atom+xml' } });
    const one = await t.app.inject({ method: 'GET', url: `${url}?count=1` });
    expect(json.json()).toHaveLength(1);
    expect(atom.headers['content-type']).toMatch(/^application\/atom\+xml/);
    expect(new Set([json.headers.etag, atom.headers.etag, one.headers.etag]).size).toBe(3);
    expect(atom.body).not.toContain('post 1');
  });

  it('follow a change of settings (the precision of public locations)', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'locations', user.id, [{ scope: 'public', lat: 52.520008, lon: 13.404954 }]);
    const url = `/locations/public/${user.username}`;
    await updateSettings(t.database.db, user.id, { publicLocationPrecisionM: 10_000 });
    const coarse = (await t.app.inject({ method: 'GET', url })).json<{ lat: number }[]>();
    await updateSettings(t.database.db, user.id, { publicLocationPrecisionM: 100 });
    const fine = (await t.app.inject({ method: 'GET', url })).json<{ lat: number }[]>();
    expect(coarse[0]!.lat).not.toBe(fine[0]!.lat);
    expect(Math.abs(fine[0]!.lat - 52.520008)).toBeLessThan(0.001);
  });

  it('are 404 for a user who is gone, even after a copy was made', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'media', user.id, [{ scope: 'public' }]);
    const url = `/media/public/${user.username}`;
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    await t.database.db.deleteFrom('users').where('id', '=', user.id).execute();
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });
});

describe('public pages without copies (WAYPOST_PUBLIC_CACHE_MB=0)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { WAYPOST_PUBLIC_CACHE_MB: '0' } });
  });
  afterAll(() => t.close());

  it('still answer 304 and still change with the items', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    const url = `/posts/public/${user.username}`;
    const etag = String((await t.app.inject({ method: 'GET', url })).headers.etag);
    expect((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    expect((await t.app.inject({ method: 'GET', url })).json()).toHaveLength(2);
  });
});

describe('copies replayed over a real connection', () => {
  let t: Listening;
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let url: string;
  beforeAll(async () => {
    // A window far longer than the test, so what is replayed does not depend on timing.
    t = await listeningTestApp({
      env: { WAYPOST_PUBLIC_CACHE_REVALIDATE_MS: '60000', WAYPOST_METRICS_LOOPBACK: 'true' },
    });
    user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    url = `${t.baseUrl}/posts/public/${user.username}`;
  });
  afterAll(() => t.close());

  const headersOf = (response: Response) => {
    const headers = Object.fromEntries(response.headers);
    delete headers['x-request-id'];
    delete headers.date;
    return headers;
  };

  it('are the same answer again, headers and all, with a request id of their own', async () => {
    const first = await fetch(url);
    const firstBody = await first.text();
    const again = await fetch(url, { headers: { 'x-request-id': 'replayed-1' } });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(headersOf(again)).toEqual(headersOf(first));
    expect(again.headers.get('x-request-id')).toBe('replayed-1');
    expect(again.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('serve what the database confirmed within the window, and a write through this process at once', async () => {
    const before = texts(await (await fetch(url)).json());
    // Another process's write: this process has no signal, so its copy stands for the window.
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public', time: 1_800_000_000_000 }]);
    expect(texts(await (await fetch(url)).json())).toEqual(before);

    const token = await tokenFor(t, user, ['create_post']);
    const created = await fetch(`${t.baseUrl}/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'written through the app', groups: [], scope: 'public' }),
    });
    expect(created.status).toBe(202);
    const after = texts(await (await fetch(url)).json());
    expect(after).toContain('written through the app');
    expect(after).toHaveLength(before.length + 2);
  });

  it('stand when a writing request is refused (4xx): it wrote nothing', async () => {
    const before = texts(await (await fetch(url)).json());
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public', time: 1_900_000_000_000 }]);
    const refused = await fetch(`${t.baseUrl}/posts`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(texts(await (await fetch(url)).json())).toEqual(before);
  });

  it("come from a server with fastify's own timeouts", () => {
    expect(t.app.server.keepAliveTimeout).toBe(72_000);
    expect(t.app.server.requestTimeout).toBe(0);
  });

  it('leave conditional requests to the application, which answers 304', async () => {
    const other = await createTestUser(t.database);
    await insertItems(t.database, 'posts', other.id, [{ scope: 'public' }]);
    const page = `${t.baseUrl}/posts/public/${other.username}`;
    const etag = (await fetch(page)).headers.get('etag')!;
    await (await fetch(page)).arrayBuffer(); // replayed now
    const response = await fetch(page, { headers: { 'if-none-match': etag } });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(etag);
  });

  it('are counted in the metrics like any other answer', async () => {
    const count = async () => {
      const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('http_requests_total{') && l.includes('route="/posts/public/:username"'));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const start = await count();
    for (let i = 0; i < 5; i += 1) await (await fetch(url)).arrayBuffer();
    expect(await count()).toBe(start + 5);
  });
});

describe('copies with a short window', () => {
  let t: Listening;
  beforeAll(async () => {
    t = await listeningTestApp({ env: { WAYPOST_PUBLIC_CACHE_REVALIDATE_MS: '200' } });
  });
  afterAll(() => t.close());

  it("show another process's write once the window has passed", async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    const url = `${t.baseUrl}/posts/public/${user.username}`;
    expect(await (await fetch(url)).json()).toHaveLength(1);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await (await fetch(url)).json()).toHaveLength(2);
  });
});

describe('PageCache', () => {
  const copy = (etag: string, bytes: number) => ({
    etag,
    page: { type: 'application/json', body: Buffer.alloc(bytes), link: undefined },
    headers: { 'content-type': 'application/json' },
    route: '/x',
    checkedAt: 0,
    generation: 0,
  });
  const now = { at: 0, generation: 0 };

  it('keeps at most its size, the least recently used going first', () => {
    const cache = new PageCache({ maxBytes: 64 * 1024, revalidateMs: 1000 });
    cache.keep('a', copy('A', 2000));
    cache.keep('b', copy('B', 2000));
    expect(cache.current('a', 'A', now)).toBeDefined(); // a is now the most recent
    for (let i = 0; i < 40; i += 1) cache.keep(`filler${i}`, copy(`F${i}`, 2000));
    expect(cache.size.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(cache.current('b', 'B', now)).toBeUndefined();
    expect(cache.current('filler39', 'F39', now)).toBeDefined();
  });

  it('counts what a copy costs besides its body, so empty pages under long names stay bounded', () => {
    const cache = new PageCache({ maxBytes: 64 * 1024, revalidateMs: 1000 });
    for (let i = 0; i < 1000; i += 1) cache.keep(`${'x'.repeat(1000)}${i}`, copy(`E${i}`, 2));
    expect(cache.size.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(cache.size.pages).toBeLessThan(64);
    cache.keep('y'.repeat(5000), copy('LONG', 2));
    expect(cache.current('y'.repeat(5000), 'LONG', now)).toBeUndefined();
  });

  it('does not keep a page bigger than a sixteenth of its size, and answers only for the same ETag', () => {
    const cache = new PageCache({ maxBytes: 64 * 1024, revalidateMs: 1000 });
    cache.keep('big', copy('BIG', 4096));
    expect(cache.size.pages).toBe(0);
    cache.keep('k', copy('V1', 10));
    expect(cache.current('k', 'V2', now)).toBeUndefined();
    expect(cache.current('k', 'V1', now)?.page.body.length).toBe(10);
  });

  it('keeps a body of its own, not a slice of a shared pool', () => {
    const cache = new PageCache({ maxBytes: 64 * 1024, revalidateMs: 1000 });
    const pooled = Buffer.from('[]');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    cache.keep('k', { ...copy('V', 0), page: { type: 'application/json', body: pooled, link: undefined } });
    const kept = cache.current('k', 'V', now)!.page.body;
    expect(kept.toString()).toBe('[]');
    expect(kept.buffer.byteLength).toBe(2);
  });

  it('goes stale after an answer that may have written, not after a read or a refused write', () => {
    const cache = new PageCache({ maxBytes: 64 * 1024, revalidateMs: 1000 });
    const generations = (
      [
        ['GET', 200],
        ['POST', 400],
        ['DELETE', 404],
        ['POST', 202],
        ['PUT', 500],
        ['PATCH', 204],
        ['DELETE', 204],
        ['HEAD', 200],
      ] as const
    ).map(([method, status]) => {
      cache.answered(method, status);
      return cache.checkpoint().generation;
    });
    expect(generations).toEqual([0, 0, 0, 1, 2, 3, 4, 4]);
  });
});

describe('If-None-Match', () => {
  it('compares weakly, takes lists and *', () => {
    const etag = 'W/"abc"';
    expect(noneMatch(undefined, etag)).toBe(false);
    expect(noneMatch('W/"abc"', etag)).toBe(true);
    expect(noneMatch('"abc"', etag)).toBe(true);
    expect(noneMatch('"x", W/"abc"', etag)).toBe(true);
    expect(noneMatch('*', etag)).toBe(true);
    expect(noneMatch('"abcd"', etag)).toBe(false);
  });
});
