// A person's public pages, read as a stranger and as an IndieWeb reader would: microformats2
// parsed by microformats-parser (written elsewhere), the caching rules of the public collections,
// and an attacker comparing pages byte for byte while the person writes privately.
import { mf2 } from 'microformats-parser';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { insertItems } from '../../../test/items.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { PROFILE_PAGE_SIZE } from './profile.logic.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function post(token: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/posts',
    headers: { authorization: `Bearer ${token}` },
    payload: { text, groups: [], ...extra },
  });
  expect(response.statusCode).toBe(202);
  return response.json<{ id: string }>().id;
}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

function parse(body: string, url: string) {
  return mf2(body, { baseUrl: url });
}

type Item = { type: string[]; properties: Record<string, unknown[]>; children?: Item[] };

describe('GET /@<username>', () => {
  it('is an h-card with the name and bio, and an h-feed of the public posts only', async () => {
    const user = await createTestUser(t.database, { displayName: 'Ada <Lovelace>', bio: 'Walks & writes.' });
    const token = await tokenFor(t, user, ['create_post']);
    await post(token, 'First public post', { scope: 'public' });
    await post(token, 'A private thought nobody may read', { scope: 'private' });
    await post(token, 'Second public post\nwith two lines', { scope: 'public' });

    const response = await get(`/@${user.username}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).not.toContain('A private thought');

    const parsed = parse(response.body, `http://waypost.test/@${user.username}`);
    const items = parsed.items as Item[];
    const card = items.find((item) => item.type.includes('h-card'));
    expect(card?.properties.name).toEqual(['Ada <Lovelace>']);
    expect(card?.properties.note).toEqual(['Walks & writes.']);
    expect(card?.properties.url).toEqual([`http://waypost.test/@${user.username}`]);
    const feed = items.find((item) => item.type.includes('h-feed'));
    const entries = (feed?.children ?? []).filter((item) => item.type.includes('h-entry'));
    const contents = entries.map((entry) => (entry.properties.content?.[0] as { value: string }).value);
    expect(contents).toEqual(['Second public post\nwith two lines', 'First public post']);
    for (const entry of entries) {
      expect(entry.properties.published?.[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(String(entry.properties.url?.[0])).toMatch(
        new RegExp(`^http://waypost\\.test/@${user.username}/[0-9A-Z]{26}$`),
      );
    }
  });

  it('links the feeds and announces them, with OpenGraph and Twitter card meta', async () => {
    const user = await createTestUser(t.database, { displayName: 'Feeder', bio: 'Bio text' });
    const body = (await get(`/@${user.username}`)).body.replace(/\s+/g, ' ');
    const base = `http://waypost.test/posts/public/${user.username}`;
    expect(body).toContain(
      `<link rel="alternate" type="application/atom+xml" title="Feeder (Atom)" href="${base}?format=atom" />`,
    );
    expect(body).toContain(
      `<link rel="alternate" type="application/feed+json" title="Feeder (JSON Feed)" href="${base}?format=jsonfeed" />`,
    );
    expect(body).toContain(
      `type="application/geo+json" title="Feeder's places (GeoJSON)" href="http://waypost.test/locations/public/${user.username}?format=geojson"`,
    );
    expect(body).toContain('<meta property="og:type" content="profile" />');
    expect(body).toContain(`<meta property="og:title" content="Feeder (@${user.username})" />`);
    expect(body).toContain('<meta property="og:description" content="Bio text" />');
    expect(body).toContain('<meta name="twitter:card" content="summary" />');
    for (const link of [`${base}?format=atom`, `${base}?format=jsonfeed`]) {
      expect((await get(link.replace('http://waypost.test', ''))).statusCode).toBe(200);
    }
  });

  it('shows a public post photo with its caption as alt text and only public media', async () => {
    const user = await createTestUser(t.database);
    const [publicPhoto, privatePhoto] = await insertItems(t.database, 'media', user.id, [
      { scope: 'public' },
      { scope: 'private' },
    ]);
    await sql`update media set caption = 'Sunrise over the bay', has_thumbnail = 1 where id = ${publicPhoto!}`.execute(
      t.database.db,
    );
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public' }]);
    await sql`update posts set media_ids = ${JSON.stringify([publicPhoto, privatePhoto])} where user_id = ${user.id}`.execute(
      t.database.db,
    );
    const body = (await get(`/@${user.username}`)).body;
    // The photo opens in the viewer; the file itself is the entry's u-photo.
    expect(body).toContain(`href="http://waypost.test/@${user.username}/media/${publicPhoto!}"`);
    expect(body).toContain(`<data class="u-photo" value="http://waypost.test/media/id/${publicPhoto!}/file"></data>`);
    expect(body).toContain(`src="http://waypost.test/media/id/${publicPhoto!}/thumbnail" alt="Sunrise over the bay"`);
    expect(body).not.toContain(privatePhoto!);
    const entry = (parse(body, 'http://waypost.test/').items as Item[])
      .find((item) => item.type.includes('h-feed'))
      ?.children?.find((item) => item.type.includes('h-entry'));
    expect(entry?.properties.photo).toEqual([`http://waypost.test/media/id/${publicPhoto!}/file`]);
  });

  it('pages with the cursors of the JSON collection', async () => {
    const user = await createTestUser(t.database);
    const seeds = Array.from({ length: PROFILE_PAGE_SIZE + 5 }, (_, i) => ({
      scope: 'public' as const,
      time: 1_700_000_000_000 + i,
    }));
    await insertItems(t.database, 'posts', user.id, seeds);
    const first = (await get(`/@${user.username}`)).body;
    expect(first.match(/class="entry h-entry"/g)).toHaveLength(PROFILE_PAGE_SIZE);
    const json = await get(`/posts/public/${user.username}?count=${PROFILE_PAGE_SIZE}`);
    const cursor = /cursor=([A-Za-z0-9_.-]+)>/.exec(String(json.headers.link))?.[1];
    expect(cursor).toBeDefined();
    const next = `http://waypost.test/@${user.username}?cursor=${cursor!}`;
    expect(first).toContain(`<link rel="next" href="${next}" />`);
    const second = await get(`/@${user.username}?cursor=${cursor!}`);
    expect(second.statusCode).toBe(200);
    expect(second.body.match(/class="entry h-entry"/g)).toHaveLength(5);
    expect(second.body).not.toContain('rel="next"');
    const older = (await get(`/posts/public/${user.username}?cursor=${cursor!}`)).json<{ text: string }[]>();
    const texts = [...second.body.matchAll(/<div class="text e-content">([^<]*)<\/div>/g)].map((m) => m[1]);
    expect(texts).toEqual(older.map((p) => p.text));
  });

  it('answers a cursor it did not make with a 400 page', async () => {
    const user = await createTestUser(t.database);
    const response = await get(`/@${user.username}?cursor=not-a-cursor`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('This address is not a page');
  });

  it('opens the map at the latest public place, rounded, and draws from the public tiles', async () => {
    const user = await createTestUser(t.database);
    const none = (await get(`/@${user.username}`)).body;
    expect(none).not.toContain('data-waypost-map');
    expect(none).toContain('has no public places yet');
    await insertItems(t.database, 'locations', user.id, [
      { scope: 'public', time: 1_700_000_000_000, lat: 48.85833, lon: 2.29513 },
      { scope: 'private', time: 1_700_000_100_000, lat: 10.123456, lon: 20.654321 },
    ]);
    const body = (await get(`/@${user.username}`)).body;
    const place = (await get(`/locations/public/${user.username}?count=1`)).json<{ lat: number; lon: number }[]>();
    expect(body).toContain(`data-center="${place[0]!.lon},${place[0]!.lat}"`);
    expect(body).not.toContain('48.85833');
    expect(body).not.toContain('10.123456');
    expect(body).toContain(`data-tiles="/locations/public/${user.username}/tiles/{z}/{x}/{y}.mvt"`);
    const script = /<script type="module" src="([^"]+)"><\/script>/.exec(body)?.[1];
    expect(script).toMatch(/^\/assets\/public\/[A-Za-z0-9_-]{12}\/waypost-map\.js$/);
    const asset = await get(script!);
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });
});

describe('privacy and caching of the public pages', () => {
  it('neither the bytes nor the ETag change when the person adds or edits a private post', async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['create_post']);
    await post(token, 'Out in the open', { scope: 'public' });
    const publicId = await post(token, 'Also public', { scope: 'public' });
    const secretId = await post(token, 'The first secret', { scope: 'private' });
    const urls = [`/@${user.username}`, `/@${user.username}/${publicId}`];
    const before = await Promise.all(urls.map((url) => get(url)));

    await post(token, 'A second secret', { scope: 'private' });
    await sql`update posts set text = 'An edited secret', time = time + 1 where id = ${secretId}`.execute(
      t.database.db,
    );
    await insertItems(t.database, 'locations', user.id, [{ scope: 'private', lat: 1.5, lon: 2.5 }]);

    for (const [index, url] of urls.entries()) {
      const after = await get(url);
      expect(after.statusCode).toBe(200);
      expect(after.body).toBe(before[index]!.body);
      expect(after.headers.etag).toBe(before[index]!.headers.etag);
      expect(after.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
      expect(after.headers['cache-control']).toBe('public, no-cache');
      const again = await get(url, { 'if-none-match': String(before[index]!.headers.etag) });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    }
  });

  it('a post made private leaves the profile, its page answers the same 404 as a missing post, and the ETag moves', async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['create_post']);
    const id = await post(token, 'Soon to be hidden', { scope: 'public' });
    const profile = await get(`/@${user.username}`);
    expect(profile.body).toContain('Soon to be hidden');
    expect((await get(`/@${user.username}/${id}`)).statusCode).toBe(200);

    await sql`update posts set scope = 'private' where id = ${id}`.execute(t.database.db);
    const after = await get(`/@${user.username}`, { 'if-none-match': String(profile.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.body).not.toContain('Soon to be hidden');
    expect(after.headers.etag).not.toBe(profile.headers.etag);

    const hidden = await get(`/@${user.username}/${id}`);
    const missing = await get(`/@${user.username}/01ARZ3NDEKTSV4RRFFQ69G5FAV`);
    const nobody = await get('/@nobody_here/01ARZ3NDEKTSV4RRFFQ69G5FAV');
    for (const response of [hidden, missing, nobody]) {
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers.etag).toBeUndefined();
      expect(response.body).toBe(hidden.body);
    }
    expect(hidden.body).not.toContain('Soon to be hidden');
    expect((await get('/@nobody_here')).body).toBe(hidden.body);
  });

  it("another person's private post answers the same 404 under their name and under one's own", async () => {
    const owner = await createTestUser(t.database);
    const other = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['create_post']);
    const id = await post(token, 'Private to the owner', { scope: 'private' });
    const underOwner = await get(`/@${owner.username}/${id}`);
    const underOther = await get(`/@${other.username}/${id}`);
    const missing = await get(`/@${owner.username}/01ARZ3NDEKTSV4RRFFQ69G5FAV`);
    expect([underOwner.statusCode, underOther.statusCode, missing.statusCode]).toEqual([404, 404, 404]);
    expect(underOwner.body).toBe(missing.body);
    expect(underOther.body).toBe(missing.body);
  });
});

describe('GET /@<username>/<post id>', () => {
  it('is one h-entry with article meta, its photo as the preview image', async () => {
    const user = await createTestUser(t.database, { displayName: 'Poster' });
    const [photo] = await insertItems(t.database, 'media', user.id, [{ scope: 'public' }]);
    await sql`update media set caption = 'A red door' where id = ${photo!}`.execute(t.database.db);
    const token = await tokenFor(t, user, ['create_post']);
    const id = await post(token, 'Look at this door', { scope: 'public', media_ids: [photo] });
    const url = `http://waypost.test/@${user.username}/${id}`;
    const response = await get(`/@${user.username}/${id}`);
    expect(response.statusCode).toBe(200);
    const entries = (parse(response.body, url).items as Item[]).filter((item) => item.type.includes('h-entry'));
    expect(entries).toHaveLength(1);
    expect((entries[0]!.properties.content?.[0] as { value: string }).value).toBe('Look at this door');
    expect(entries[0]!.properties.url).toEqual([url]);
    expect(response.body).toContain('<meta property="og:type" content="article" />');
    expect(response.body).toContain(
      `<meta property="og:image" content="http://waypost.test/media/id/${photo!}/file" />`,
    );
    expect(response.body).toContain('<meta property="og:image:alt" content="A red door" />');
    expect(response.body).toContain('<meta name="twitter:card" content="summary_large_image" />');
    expect(response.body).toContain(`<link rel="canonical" href="${url}" />`);
  });
});
