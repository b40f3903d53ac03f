// The public pages in a real browser (Debian's Chromium, playwright-core): a stranger sees a
// public post and its photo and never a private one, a post made private vanishes, the map
// draws the person's points from the public tiles with no basemap reachable (the tests run
// offline) and under the Content-Security-Policy, and axe-core finds no serious or critical
// accessibility problem at desktop and phone width.
import { AxeBuilder } from '@axe-core/playwright';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../../test/helpers.ts';
import { insertItems } from '../../../test/items.ts';
import { uploadMedium } from '../../../test/media.ts';
import { listeningTestApp } from '../../../test/server.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { launchChromium } from '../../../test/web.ts';

type Listening = Awaited<ReturnType<typeof listeningTestApp>>;

const WIDTHS = { desktop: 1280, phone: 360 } as const;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** A page that records what the tests ask about: tile answers and policy violations. */
async function open(url: string, width: number = WIDTHS.desktop) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const tiles: number[] = [];
  const violations: string[] = [];
  page.on('response', (response) => {
    if (response.url().endsWith('.mvt')) tiles.push(response.status());
  });
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  await page.goto(url);
  return { page, tiles, violations, close: () => context.close() };
}

/** Waits for the map to report that it drew, and returns what it reports. */
async function drawn(page: Page) {
  const map = page.locator('[data-waypost-map]');
  await expect.poll(() => map.getAttribute('data-map-state'), { timeout: 20_000 }).toBe('ready');
  return Number(await map.getAttribute('data-points-drawn'));
}

async function serious(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

async function post(t: Listening, token: string, body: Record<string, unknown>): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/posts',
    headers: { authorization: `Bearer ${token}` },
    payload: { groups: [], ...body },
  });
  expect(response.statusCode).toBe(202);
  return response.json<{ id: string }>().id;
}

describe('with the default basemap, which cannot be reached', () => {
  let t: Listening;
  let username: string;
  let photoId: string;
  let postId: string;
  let token: string;
  const publicPoints = 40;

  beforeAll(async () => {
    t = await listeningTestApp();
    const user = await createTestUser(t.database, { displayName: 'Robin Walker', bio: 'Out and about.' });
    username = user.username;
    token = await tokenFor(t, user, ['create_post', 'upload_media']);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c05050' } })
      .png()
      .toBuffer();
    const uploaded = await uploadMedium(t, token, png, 'door.png', 'image/png', {
      scope: 'public',
      caption: 'A red door in the old town',
    });
    expect(uploaded.statusCode).toBe(201);
    photoId = uploaded.json<{ id: string }>().id;
    postId = await post(t, token, { text: 'Found this door today', scope: 'public', media_ids: [photoId] });
    await post(t, token, { text: 'Nobody else may read this', scope: 'private' });
    const seeds = Array.from({ length: publicPoints }, (_, i) => ({
      scope: 'public' as const,
      lat: 48.85 + i / 2000,
      lon: 2.29 + i / 2000,
      time: 1_700_000_000_000 + i * 60_000,
    }));
    await insertItems(t.database, 'locations', user.id, seeds);
    await insertItems(t.database, 'locations', user.id, [
      { scope: 'private', lat: 48.86, lon: 2.3, time: 1_800_000_000_000 },
    ]);
  });
  afterAll(() => t?.close());

  it('a stranger sees the public post and its photo, never the private one', async () => {
    const { page, close } = await open(`${t.baseUrl}/@${username}`);
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 10_000 })
      .toBe('Robin Walker');
    expect(await page.getByText('Found this door today').count()).toBe(1);
    expect(await page.getByText('Nobody else may read this').count()).toBe(0);
    const photo = page.getByRole('img', { name: 'A red door in the old town' });
    await expect
      .poll(
        () =>
          photo.evaluate((img) =>
            (img as unknown as { complete: boolean }).complete
              ? (img as unknown as { naturalWidth: number }).naturalWidth
              : 0,
          ),
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
    await close();
  });

  it('the map draws every public point from public tiles, none private, with no basemap and no policy violation', async () => {
    const { page, tiles, violations, close } = await open(`${t.baseUrl}/@${username}`);
    expect(await drawn(page)).toBe(publicPoints);
    expect(tiles.length).toBeGreaterThan(0);
    expect(tiles.every((status) => status === 200)).toBe(true);
    expect(violations).toEqual([]);
    await close();
  });

  it('a post made private vanishes from the profile and its page', async () => {
    const hidden = await post(t, token, { text: 'Public for a moment', scope: 'public' });
    const { page, close } = await open(`${t.baseUrl}/@${username}`);
    expect(await page.getByText('Public for a moment').count()).toBe(1);
    await sql`update posts set scope = 'private' where id = ${hidden}`.execute(t.database.db);
    await page.reload();
    expect(await page.getByText('Found this door today').count()).toBe(1);
    expect(await page.getByText('Public for a moment').count()).toBe(0);
    const single = await page.goto(`${t.baseUrl}/@${username}/${hidden}`);
    expect(single?.status()).toBe(404);
    await close();
  });

  for (const [name, width] of Object.entries(WIDTHS)) {
    it(`axe finds no serious or critical problem on the profile and a post, ${name} width`, async () => {
      const profile = await open(`${t.baseUrl}/@${username}`, width);
      await drawn(profile.page);
      expect(await serious(profile.page)).toEqual([]);
      await profile.close();
      const single = await open(`${t.baseUrl}/@${username}/${postId}`, width);
      expect(await serious(single.page)).toEqual([]);
      await single.close();
    });
  }
});

describe('with a raster basemap on another origin', () => {
  let t: Listening;
  let tileServer: Server;
  let basemapRequests = 0;
  let username: string;

  beforeAll(async () => {
    const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#a8c8a0' } })
      .png()
      .toBuffer();
    tileServer = createServer((request, response) => {
      basemapRequests += 1;
      const ok = /^\/\d+\/\d+\/\d+\.png$/.test(request.url ?? '');
      response
        .writeHead(ok ? 200 : 404, { 'content-type': 'image/png', 'access-control-allow-origin': '*' })
        .end(ok ? png : undefined);
    });
    await new Promise<void>((resolve) => tileServer.listen(0, '127.0.0.1', resolve));
    const port = (tileServer.address() as { port: number }).port;
    // localhost, not 127.0.0.1: another origin than Waypost's, as a tile provider is.
    t = await listeningTestApp({ env: { WAYPOST_MAP_STYLE: `http://localhost:${port}/{z}/{x}/{y}.png` } });
    const user = await createTestUser(t.database);
    username = user.username;
    await insertItems(t.database, 'locations', user.id, [{ scope: 'public', lat: 52.52, lon: 13.405 }]);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => tileServer?.close(resolve));
  });

  it('loads the basemap tiles the policy allows, and the point above them', async () => {
    const { page, violations, close } = await open(`${t.baseUrl}/@${username}`);
    expect(await drawn(page)).toBe(1);
    expect(basemapRequests).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    await close();
  });
});

describe('the signed-in Map page', () => {
  let t: Listening;
  let person: { username: string; password: string };
  const day = '2026-11-20';
  const privatePoints = 30;
  const publicPoints = 10;

  beforeAll(async () => {
    t = await listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } });
    const user = await createTestUser(t.database);
    person = user;
    const start = Date.parse(`${day}T10:00:00Z`);
    const seeds = (scope: 'public' | 'private', count: number, offset: number) =>
      Array.from({ length: count }, (_, i) => ({
        scope,
        lat: 52.52 - (count - i) * 0.0004 - offset,
        lon: 13.405 - (count - i) * 0.0004,
        time: start + (i + (scope === 'private' ? publicPoints : 0)) * 60_000,
      }));
    await insertItems(t.database, 'locations', user.id, [
      ...seeds('public', publicPoints, 0.01),
      ...seeds('private', privatePoints, 0),
    ]);
    // The latest point, at the centre of the map: exactly where the page opens.
    await insertItems(t.database, 'locations', user.id, [
      { scope: 'private', lat: 52.52, lon: 13.405, time: start + 3_600_000 },
    ]);
    await sql`update locations set accuracy = 12 where user_id = ${user.id}`.execute(t.database.db);
  });
  afterAll(() => t?.close());

  async function signedIn(path: string, width: number = WIDTHS.desktop) {
    const opened = await open(`${t.baseUrl}/account`, width);
    await opened.page.getByLabel('Username').fill(person.username);
    await opened.page.getByLabel('Password').fill(person.password);
    await opened.page.getByRole('button', { name: 'Sign in' }).click();
    await opened.page.waitForURL(`${t.baseUrl}/`);
    await opened.page.goto(`${t.baseUrl}${path}`);
    return opened;
  }

  it("draws every point of the person's history from the owner's tiles, and only the public ones for strangers", async () => {
    const { page, tiles, violations, close } = await signedIn('/app/map');
    expect(await drawn(page)).toBe(privatePoints + publicPoints + 1);
    expect(tiles.length).toBeGreaterThan(0);
    expect(tiles.every((status) => status === 200)).toBe(true);
    expect(page.url()).toBe(`${t.baseUrl}/app/map`);

    const before = tiles.length;
    await page.getByRole('checkbox', { name: 'What strangers see' }).check();
    await page.waitForURL(/view=public/);
    expect(await drawn(page)).toBe(publicPoints);
    expect(tiles.length).toBeGreaterThan(before);
    expect(violations).toEqual([]);
    await close();
  });

  it("shows a point's time and accuracy on click", async () => {
    const { page, close } = await signedIn('/app/map?zoom=16');
    expect(await drawn(page)).toBeGreaterThan(0);
    const box = (await page.locator('[data-waypost-map] canvas').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect
      .poll(() => page.locator('.maplibregl-popup').textContent(), { timeout: 10_000 })
      .toContain('Accuracy: 12 m');
    await close();
  });

  it("draws one day's track from GET /locations/tracks/<date>", async () => {
    const { page, close } = await signedIn(`/app/map?day=${day}`);
    await expect
      .poll(() => page.locator('#map-status').textContent(), { timeout: 20_000 })
      .toMatch(
        new RegExp(`^That day: ${privatePoints + publicPoints + 1} points, [\\d.]+ km, \\d+ minutes moving\\.$`),
      );
    await close();
  });

  for (const [name, width] of Object.entries(WIDTHS)) {
    it(`axe finds no serious or critical problem on the Map and Trackers pages, ${name} width`, async () => {
      const map = await signedIn('/app/map', width);
      await drawn(map.page);
      expect(await serious(map.page)).toEqual([]);
      await map.page.goto(`${t.baseUrl}/app/trackers`);
      // The add form's: a tracker added at the other width has a Name field of its own (rename).
      await map.page.locator('form[action="/app/trackers"]').getByLabel('Name').fill('My phone');
      await map.page.getByRole('button', { name: 'Add' }).click();
      await map.page.getByRole('img', { name: 'QR code with the OwnTracks settings for this tracker' }).waitFor();
      expect(await serious(map.page)).toEqual([]);
      await map.close();
    });
  }
});
