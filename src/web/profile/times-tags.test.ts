// The public pages on the owner's clock, with each post's place as strangers are given it, and
// hashtags that link to a page of the person's public posts with that tag (docs/web-public.md
// "Times and places", "Hashtags"); the public media viewer (docs/web-public.md "The media viewer").
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { insertItems } from '../../../test/items.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { roundPoint } from '../../privacy/precision.ts';
import { PROFILE_PAGE_SIZE } from './profile.logic.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

async function call(token: string, url: string, payload: unknown, method: 'POST' | 'DELETE' = 'POST') {
  return t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });
}

async function post(token: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await call(token, '/posts', { text, groups: [], scope: 'public', ...extra });
  expect(response.statusCode).toBe(202);
  return response.json<{ id: string }>().id;
}

/** The texts of the h-entries of a page, in order. */
const texts = (body: string) =>
  [...body.matchAll(/<div class="text e-content">([\s\S]*?)<\/div>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));

const ZURICH = { lat: 47.371234, lon: 8.538765 };

describe('times on the public pages', () => {
  it("are on the owner's clock, say which, and a change of the zone is a new version", async () => {
    const user = await createTestUser(t.database, { displayName: 'Clocky' });
    const token = await tokenFor(t, user, ['create_post', 'update_settings']);
    expect((await call(token, '/settings', { timezone: 'Europe/Berlin' })).statusCode).toBe(200);
    const id = await post(token, 'Morning by the canal');
    // 2019-06-03 08:00 UTC is 10:00 in Berlin (summer time).
    await sql`update posts set time = ${Date.UTC(2019, 5, 3, 8, 0)} where id = ${id}`.execute(t.database.db);

    const profile = await get(`/@${user.username}`);
    expect(profile.body).toContain('>3 Jun 2019, 10:00 CEST</time>');
    expect(profile.body).toContain("Times are in Europe/Berlin, Clocky's time zone.");
    const single = await get(`/@${user.username}/${id}`);
    expect(single.body).toContain('>3 Jun 2019, 10:00 CEST</time>');
    expect(single.body).toContain('datetime="2019-06-03T08:00:00.000Z"');

    const etag = String(profile.headers.etag);
    expect((await get(`/@${user.username}`, { 'if-none-match': etag })).statusCode).toBe(304);
    expect((await call(token, '/settings', { timezone: 'Asia/Tokyo' })).statusCode).toBe(200);
    const after = await get(`/@${user.username}`, { 'if-none-match': etag });
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('>3 Jun 2019, 17:00 GMT+9</time>');
    expect(after.body).toContain('Times are in Asia/Tokyo');
  });
});

describe('places on the public pages', () => {
  it("show a post's place rounded to the public precision, in words, and nothing inside a privacy zone", async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['create_post', 'update_settings']);
    await post(token, 'Coffee in the old town', { location: ZURICH });
    const body = (await get(`/@${user.username}`)).body;
    const served = roundPoint(ZURICH.lat, ZURICH.lon, 1000);
    expect(served).not.toEqual(ZURICH);
    expect(body).toContain(`<data class="p-latitude" value="${served.lat}">`);
    expect(body).toContain(`<data class="p-longitude" value="${served.lon}">`);
    expect(body).toMatch(/near <span class="p-name">Z(ü|u)rich, Switzerland<\/span>/);
    expect(body).not.toContain(String(ZURICH.lat));
    expect(body).not.toContain(String(ZURICH.lon));

    // A zone around the place: the post is still shown, without any place.
    const zone = { name: 'Home', lat: ZURICH.lat, lon: ZURICH.lon, radius_m: 200 };
    expect((await call(token, '/settings', { privacy_zones: [zone] })).statusCode).toBe(200);
    const hidden = (await get(`/@${user.username}`)).body;
    expect(texts(hidden)).toEqual(['Coffee in the old town']);
    expect(hidden).not.toContain('p-location');
    expect(hidden).not.toContain(`value="${served.lat}"`);
  });
});

describe('hashtags', () => {
  it('link to a page of the public posts with that tag, and only those', async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['create_post']);
    await post(token, 'A walk along the #Spree, then #coffee.');
    await post(token, 'Spree without the sign');
    await post(token, 'Boat trip on the #spree');
    await post(token, 'A #spreewald weekend');
    await post(token, 'Issue#spree is not a tag, nor is &#spree');
    await post(token, 'Private #spree notes', { scope: 'private' });

    const profile = (await get(`/@${user.username}`)).body;
    expect(profile).toContain(
      `A walk along the <a class="hashtag" rel="tag" href="http://waypost.test/@${user.username}/tagged/Spree">#Spree</a>, then <a class="hashtag" rel="tag" href="http://waypost.test/@${user.username}/tagged/coffee">#coffee</a>.`,
    );
    expect(profile).not.toContain('tagged/spree">#spree</a> is not');

    const tagged = await get(`/@${user.username}/tagged/Spree`);
    expect(tagged.statusCode).toBe(200);
    expect(texts(tagged.body)).toEqual(['Boat trip on the #spree', 'A walk along the #Spree, then #coffee.']);
    expect(tagged.body).not.toContain('Private');
    expect(texts((await get(`/@${user.username}/tagged/coffee`)).body)).toEqual([
      'A walk along the #Spree, then #coffee.',
    ]);
    expect((await get(`/@${user.username}/tagged/nothing`)).body).toContain('No public posts with #nothing.');
    expect((await get(`/@${user.username}/tagged/${encodeURIComponent('no tag')}`)).statusCode).toBe(400);
    expect((await get(`/@${user.username}/tagged/42`)).statusCode).toBe(400);
    expect((await get(`/@nobody-here/tagged/spree`)).statusCode).toBe(404);
  });

  it('pages through the tagged posts, skipping those with the word only', async () => {
    const user = await createTestUser(t.database);
    const seeds = Array.from({ length: 2 * PROFILE_PAGE_SIZE + 4 }, (_, i) => ({
      scope: 'public' as const,
      time: 1_700_000_000_000 + i * 1000,
    }));
    const ids = await insertItems(t.database, 'posts', user.id, seeds);
    // Every other post has the tag; the others only the word.
    for (const [i, id] of ids.entries()) {
      const text = i % 2 === 0 ? `Run ${i} #marathon` : `marathon ${i} training`;
      await sql`update posts set text = ${text} where id = ${id}`.execute(t.database.db);
    }
    const first = await get(`/@${user.username}/tagged/marathon`);
    const firstTexts = texts(first.body);
    expect(firstTexts).toHaveLength(PROFILE_PAGE_SIZE);
    expect(firstTexts[0]).toBe(`Run ${2 * PROFILE_PAGE_SIZE + 2} #marathon`);
    const next = /<a href="http:\/\/waypost\.test(\/@[^"]+)" rel="next">/
      .exec(first.body)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(next).toBeDefined();
    const second = await get(next!);
    expect(texts(second.body)).toEqual(['Run 2 #marathon', 'Run 0 #marathon']);
    expect(second.body).not.toContain('rel="next"');
  });
});

describe('the public media viewer', () => {
  it('shows a public medium with Previous and Next among public media, the shared copy to download, and its rounded place', async () => {
    const user = await createTestUser(t.database, { displayName: 'Snapper' });
    const [older, middle, secret, newer] = await insertItems(t.database, 'media', user.id, [
      { scope: 'public', time: 1_700_000_000_000 },
      { scope: 'public', time: 1_700_000_100_000 },
      { scope: 'private', time: 1_700_000_150_000 },
      { scope: 'public', time: 1_700_000_200_000 },
    ]);
    await sql`update media set lat = ${ZURICH.lat}, lon = ${ZURICH.lon}, caption = 'The lake' where id = ${middle!}`.execute(
      t.database.db,
    );
    const page = await get(`/@${user.username}/media/${middle!}`);
    expect(page.statusCode).toBe(200);
    const base = `http://waypost.test/@${user.username}/media`;
    expect(page.body).toContain(`rel="prev" href="${base}/${newer!}"`);
    expect(page.body).toContain(`rel="next" href="${base}/${older!}"`);
    expect(page.body).not.toContain(secret!);
    expect(page.body).toContain(`href="http://waypost.test/media/id/${middle!}/file" download="${middle!}.png"`);
    const served = roundPoint(ZURICH.lat, ZURICH.lon, 1000);
    expect(page.body).toContain(`data-marker="${served.lon},${served.lat}"`);
    expect(page.body).not.toContain(String(ZURICH.lat));

    // The newest has no Previous, the oldest no Next; a private medium is the one 404 page.
    expect((await get(`/@${user.username}/media/${newer!}`)).body).toContain('This is the newest.');
    expect((await get(`/@${user.username}/media/${older!}`)).body).toContain('This is the oldest.');
    expect((await get(`/@${user.username}/media/${secret!}`)).statusCode).toBe(404);
    const other = await createTestUser(t.database);
    expect((await get(`/@${other.username}/media/${middle!}`)).statusCode).toBe(404);

    // Inside a privacy zone: no map, no place.
    const token = await tokenFor(t, user, ['update_settings']);
    const zone = { name: 'Home', lat: ZURICH.lat, lon: ZURICH.lon, radius_m: 200 };
    expect((await call(token, '/settings', { privacy_zones: [zone] })).statusCode).toBe(200);
    const zoned = (await get(`/@${user.username}/media/${middle!}`)).body;
    expect(zoned).not.toContain('data-marker');
    expect(zoned).not.toContain('Where it was taken');
  });
});
