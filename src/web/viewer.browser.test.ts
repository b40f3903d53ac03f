// In Chromium, through the pages (docs/web-public.md "Times and places", "Hashtags", "The media
// viewer"): a person's public page on their clock, with the place of a post as strangers are
// given it and hashtags that lead to the posts with that tag, never a private one; the media
// viewer moved with the arrow keys, its download (the original to its owner, the shared copy to
// anyone else) and its small map (exact for the owner, rounded for strangers); the icon; the
// compose page's focus and words after posting; axe-core at 360 and 1280 px, light and dark,
// with zero violations, on these pages and on Settings.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';
import { axeViolationsLightDark, browserTest, demoPhoto } from '../../test/web.ts';
import { roundPoint } from '../privacy/precision.ts';

const WAIT = { timeout: 20_000, interval: 100 };
/** Where gpsPhoto() says it was taken (52°31'12"N 13°24'18"E). */
const TAKEN = { lat: 52.52, lon: 13.405 };
const ZURICH = { lat: 47.371234, lon: 8.538765 };

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }), {
  person: { displayName: 'Robin' },
});
/** The photos, oldest first: public, public with its GPS, private. */
let photos: string[];
let original: Buffer;

beforeAll(async () => {
  const token = await tokenFor(t, t.person, ['create_post', 'upload_media', 'update_settings']);
  const call = async (url: string, payload: unknown) => {
    const response = await t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: payload as object,
    });
    if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json<{ id: string }>();
  };
  await call('/settings', { timezone: 'Europe/Berlin' });
  const swim = await call('/posts', {
    text: 'A swim in the #Limmat this morning',
    groups: [],
    scope: 'public',
    location: ZURICH,
  });
  // 2019-06-03 08:00 UTC: 10:00 in Berlin.
  await sql`update posts set time = ${Date.UTC(2019, 5, 3, 8, 0)} where id = ${swim.id}`.execute(t.database.db);
  await call('/posts', { text: 'The Limmat, without a tag', groups: [], scope: 'public' });
  await call('/posts', { text: 'Evening walk by the #limmat', groups: [], scope: 'public' });
  await call('/posts', { text: 'Private #limmat diary', groups: [], scope: 'private' });

  original = await gpsPhoto();
  const uploads: [Buffer, string, string][] = [
    [await demoPhoto(30), 'public', 'A red roof'],
    [original, 'public', 'The tower from the river'],
    [await demoPhoto(220), 'private', 'My desk'],
  ];
  photos = [];
  for (const [index, [file, scope, caption]] of uploads.entries()) {
    const response = await uploadMedium(t, token, file, 'photo.jpg', 'image/jpeg', { scope, caption });
    if (response.statusCode !== 201) throw new Error(`POST /media: ${response.statusCode} ${response.body}`);
    const { id } = response.json<{ id: string }>();
    await sql`update media set time = ${Date.UTC(2024, 4, 1 + index, 12)} where id = ${id}`.execute(t.database.db);
    photos.push(id);
  }
});
async function newPage(width = 1280): Promise<Page> {
  const context = await t.browser.newContext({ viewport: { width, height: 900 } });
  return context.newPage();
}

const signedIn = (width = 1280): Promise<Page> => t.signedIn({ context: { viewport: { width, height: 900 } } });

/** The SHA-256 of what the page gets from `href` (with its cookies). */
const fetchedHash = async (page: Page, href: string) =>
  createHash('sha256')
    .update(
      Buffer.from(
        await page.evaluate(async (url) => [...new Uint8Array(await (await fetch(url)).arrayBuffer())], href),
      ),
    )
    .digest('hex');

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The small map of a viewer, once drawn. */
async function viewerMap(page: Page) {
  const map = page.locator('.viewer-place [data-waypost-map]');
  await expect.poll(() => map.getAttribute('data-map-state'), WAIT).toBe('ready');
  return map;
}

describe("a person's public page", () => {
  it("shows times on the owner's clock, a post's place, and hashtags that list only that tag's public posts", async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/@${t.person.username}`);
    const swim = page.locator('article.h-entry', { hasText: 'A swim in the' });
    expect(await swim.locator('time').textContent()).toBe('3 Jun 2019, 10:00 CEST');
    expect(await page.locator('.zone-note').textContent()).toBe("Times are in Europe/Berlin, Robin's time zone.");
    const served = roundPoint(ZURICH.lat, ZURICH.lon, 1000);
    expect((await swim.locator('.place').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `near Zürich, Switzerland (${served.lat}, ${served.lon})`,
    );
    expect(await page.content()).not.toContain('Private #limmat diary');

    await Promise.all([
      page.waitForURL(`${t.baseUrl}/@${t.person.username}/tagged/Limmat`),
      swim.getByRole('link', { name: '#Limmat' }).click(),
    ]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('#Limmat');
    expect(await page.locator('article.h-entry .e-content').allTextContents()).toEqual([
      'Evening walk by the #limmat',
      'A swim in the #Limmat this morning',
    ]);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.goto(`${t.baseUrl}/@${t.person.username}`);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('the media viewer', () => {
  it('moves with the arrow keys, downloads the original for its owner, and maps the exact place', async () => {
    const [oldest, located, newest] = photos as [string, string, string];
    const page = await signedIn();
    await page.goto(`${t.baseUrl}/app/media/${located}`);
    const map = await viewerMap(page);
    expect(await map.getAttribute('data-marker')).toBe(`${TAKEN.lon},${TAKEN.lat}`);
    const download = page.getByRole('link', { name: 'Download the original' });
    expect(await download.getAttribute('download')).toBe(`${located}.jpg`);
    expect(await fetchedHash(page, (await download.getAttribute('href'))!)).toBe(sha256(original));
    expect(await page.locator('main > p.meta time').textContent()).toBe('2 May 2024, 14:00 CEST');
    expect(await axeViolationsLightDark(page)).toEqual([]);

    await page.setViewportSize({ width: 1280, height: 900 });
    await Promise.all([page.waitForURL(`${t.baseUrl}/app/media/${oldest}`), page.keyboard.press('ArrowRight')]);
    expect(await page.getByText('This is the oldest.').count()).toBe(1);
    await Promise.all([page.waitForURL(`${t.baseUrl}/app/media/${located}`), page.keyboard.press('ArrowLeft')]);
    // The private photo is the owner's newest.
    await Promise.all([page.waitForURL(`${t.baseUrl}/app/media/${newest}`), page.keyboard.press('ArrowLeft')]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Private');
    // Typing in the caption moves the cursor, not the viewer.
    await page.getByLabel('Caption (the alt text)').press('ArrowLeft');
    expect(page.url()).toBe(`${t.baseUrl}/app/media/${newest}`);
    await page.context().close();
  }, 120_000);

  it('shows strangers the public media only, the shared copy to download, and the place rounded', async () => {
    const [oldest, located] = photos as [string, string, string];
    const page = await newPage(360);
    await page.goto(`${t.baseUrl}/@${t.person.username}/media/${located}`);
    const map = await viewerMap(page);
    const served = roundPoint(TAKEN.lat, TAKEN.lon, 1000);
    expect(await map.getAttribute('data-marker')).toBe(`${served.lon},${served.lat}`);
    const download = page.getByRole('link', { name: 'Download', exact: true });
    const copy = await fetchedHash(page, (await download.getAttribute('href'))!);
    expect(copy).not.toBe(sha256(original));
    expect(await page.content()).not.toContain(photos[2]!);
    expect(await page.getByText('This is the newest.').count()).toBe(1);
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/@${t.person.username}/media/${oldest}`),
      page.keyboard.press('ArrowRight'),
    ]);
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/@${t.person.username}/media/${located}`),
      page.keyboard.press('ArrowLeft'),
    ]);
    await viewerMap(page);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('smaller things', () => {
  it('every page links an icon, and /favicon.ico answers with one', async () => {
    const page = await newPage();
    await page.goto(`${t.baseUrl}/@${t.person.username}`);
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    const answers = await page.evaluate(
      async (urls) =>
        Promise.all(
          urls.map(async (url) => {
            const response = await fetch(url);
            return `${response.status} ${response.headers.get('content-type')}`;
          }),
        ),
      [icon!, '/favicon.ico'],
    );
    expect(answers).toEqual(['200 image/svg+xml', '200 image/x-icon']);
    await page.context().close();
  });

  it('Settings is axe-clean at 360 and 1280 px, light and dark', async () => {
    const page = await signedIn();
    await page.goto(`${t.baseUrl}/app/settings`);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('compose says a text is too long in plain words, and the focus goes to the result after posting', async () => {
    const page = await signedIn();
    await page.goto(`${t.baseUrl}/app/compose`);
    const text = page.getByLabel('Text');
    await text.fill('x'.repeat(5003));
    await page.getByRole('button', { name: 'Post' }).click();
    await expect
      .poll(() => page.locator('#text-error').textContent(), WAIT)
      .toBe('Too long: this is 5,003 characters, and a post can have at most 5,000. Take out 3 to post it.');
    expect(await page.evaluate('document.activeElement?.id')).toBe('text');
    await text.fill('Short and sweet');
    await page.getByLabel('Private: only you').check();
    await page.getByRole('button', { name: 'Post' }).click();
    await expect.poll(() => page.evaluate("document.activeElement?.textContent ?? ''"), WAIT).toBe('Posted');
    expect(await text.inputValue()).toBe('');
    await page.context().close();
  }, 60_000);
});
