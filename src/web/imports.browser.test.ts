// The Imports page in Chromium (docs/imports.md "In the web app"): reached from the empty Map, a
// GPX and a Records.json uploaded with the page and followed to their end (points stored,
// duplicates, skipped, the problems with where they were), an upload that broke off sent again
// with "Try again", a file in no format refused beside the field, one import undone after its
// confirmation; axe-core at 360 and 1280 px, light and dark, with zero violations.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { browserTest, webTestApp } from '../../test/web.ts';

const WAIT = { timeout: 30_000, interval: 100 };

const t = browserTest(() => webTestApp({ WAYPOST_MAP_STYLE: 'none' }), { person: true });

const T0 = Date.UTC(2019, 5, 3, 8, 0, 0);
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** Three timed track points and one without a time (skipped). */
const GPX = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>Canal walk</name><trkseg>
    <trkpt lat="52.3702" lon="4.8952"><time>${iso(0)}</time></trkpt>
    <trkpt lat="52.3712" lon="4.8962"><time>${iso(1)}</time></trkpt>
    <trkpt lat="52.3722" lon="4.8972"><time>${iso(2)}</time></trkpt>
    <trkpt lat="52.3732" lon="4.8982"></trkpt>
  </trkseg></trk>
</gpx>`;

/** Six points: the first the same as the GPX's first (a duplicate), the second off the globe (skipped, a problem). */
const RECORDS = JSON.stringify({
  locations: [
    { latitudeE7: 523_702_000, longitudeE7: 48_952_000, timestamp: iso(0) },
    { latitudeE7: 950_000_000, longitudeE7: 48_952_000, timestamp: iso(30) },
    ...Array.from({ length: 4 }, (_, i) => ({
      latitudeE7: 523_800_000 + i * 1000,
      longitudeE7: 49_000_000 + i * 1000,
      accuracy: 10,
      timestamp: iso(60 + i),
    })),
  ],
});

const signedIn = (width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> =>
  t.signedIn({ context: { viewport: { width, height: 900 }, colorScheme } });

/** The card of an import, by its file name. */
const card = (page: Page, filename: string) =>
  page.locator('#imports li', { has: page.locator('h3', { hasText: filename }) });

/** A card's counters, as the page says them. */
async function counters(page: Page, filename: string): Promise<Record<string, string>> {
  const pairs = await card(page, filename).locator('dl.counters div').allTextContents();
  return Object.fromEntries(pairs.map((pair) => [pair.split(/(?=\d)/)[0]!.trim(), pair.replace(/^\D+/, '').trim()]));
}

async function pick(page: Page, name: string, content: string) {
  await page.getByLabel('Choose a file, or drop it here').setInputFiles({
    name,
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(content),
  });
}

async function storedPoints(): Promise<number> {
  const token = await tokenFor(t, t.person, ['get_private_scope']);
  const response = await t.app.inject({
    method: 'GET',
    url: '/locations/private?count=1000',
    headers: { authorization: `Bearer ${token}` },
  });
  return response.json<unknown[]>().length;
}

describe('the Imports page', () => {
  it('imports a GPX and a Records.json, follows them to the end, sends a broken-off upload again, and undoes one', async () => {
    const page = await signedIn(1280);

    // The empty Map says what to do, and links there.
    await page.goto(`${t.baseUrl}/app/map`);
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/app/imports`),
      page.getByRole('link', { name: 'import a history' }).click(),
    ]);
    expect(await page.locator('#imports-empty').isVisible()).toBe(true);

    // A file in no format is refused beside the field, saying what it looks like.
    await pick(page, 'notes.txt', 'just some words\nand more words\n');
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => page.locator('#import-file-error').textContent(), WAIT).toMatch(/not a location format/);

    // The GPX: uploaded, then followed until done, with the skipped point and where it was.
    await pick(page, 'walk.gpx', GPX);
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => card(page, 'walk.gpx').locator('.import-status').textContent(), WAIT).toBe('Done');
    expect(await counters(page, 'walk.gpx')).toEqual({
      'Points stored': '3',
      Duplicates: '0',
      Skipped: '1',
      Problems: '0',
    });
    expect(await card(page, 'walk.gpx').locator('.meta').first().textContent()).toContain('GPX track');

    // The Records.json: the first upload breaks off (the connection drops); "Try again" sends it whole.
    let broken = false;
    await page.route('**/imports', async (route) => {
      if (!broken && route.request().method() === 'POST') {
        broken = true;
        await route.abort('connectionreset');
      } else await route.continue();
    });
    await pick(page, 'Records.json', RECORDS);
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => page.locator('#upload-status').textContent(), WAIT).toMatch(/broke off/);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => card(page, 'Records.json').locator('.import-status').textContent(), WAIT).toBe('Done');
    expect(await counters(page, 'Records.json')).toEqual({
      'Points stored': '4',
      Duplicates: '1',
      Skipped: '1',
      Problems: '1',
    });
    await card(page, 'Records.json').getByText('1 problem').click();
    expect(await card(page, 'Records.json').locator('.import-errors li').textContent()).toMatch(
      /^Records\.json.*: .*lat/i,
    );
    expect(await card(page, 'Records.json').locator('.meta').first().textContent()).toContain(
      'Google Takeout Records.json',
    );
    expect(await storedPoints()).toBe(7);

    // After a reload the list is the server's, newest first.
    await page.reload();
    expect(await page.locator('#imports h3').allTextContents()).toEqual(['Records.json', 'walk.gpx']);

    // Undo the GPX: the confirmation says how many points go; its points go, the duplicate stays.
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await card(page, 'walk.gpx').getByRole('button', { name: /^Undo/ }).click();
    await expect.poll(() => page.locator('#imports h3').allTextContents(), WAIT).toEqual(['Records.json']);
    expect(question).toBe(
      'Undo the import of walk.gpx? The 3 points it stored will be deleted; points that were already here stay.',
    );
    expect(await storedPoints()).toBe(4);
    await page.reload();
    expect(await page.locator('#imports h3').allTextContents()).toEqual(['Records.json']);
    await page.context().close();
  }, 120_000);

  it('restores an export through the same form and lists what came back of each kind', async () => {
    // Another person's export: a view and two points.
    const other = await createTestUser(t.database);
    const token = await tokenFor(t, other, ['write_locations', 'manage_views', 'export']);
    const headers = { authorization: `Bearer ${token}` };
    const view = await t.app.inject({
      method: 'POST',
      url: '/views',
      headers,
      payload: { name: 'Walks', kinds: ['locations'], filters: {}, scope: 'public' },
    });
    expect(view.statusCode).toBe(201);
    await t.app.inject({
      method: 'POST',
      url: '/locations',
      headers,
      payload: [0, 1].map((i) => ({ time: T0 / 1000 + 86_400 + i * 60, lat: 52.36 + i * 0.001, lon: 4.9 })),
    });
    const archive = await t.app.inject({ method: 'GET', url: '/export', headers });
    expect(archive.statusCode).toBe(200);

    const page = await signedIn(1280);
    await page.goto(`${t.baseUrl}/app/imports`);
    await page.getByLabel('Choose a file, or drop it here').setInputFiles({
      name: 'waypost-export.zip',
      mimeType: 'application/zip',
      buffer: archive.rawPayload,
    });
    await page.getByRole('button', { name: 'Upload and import' }).click();
    const restore = card(page, 'waypost-export.zip');
    await expect.poll(() => restore.locator('.import-status').textContent(), WAIT).toBe('Done');
    expect(await restore.locator('.meta').first().textContent()).toContain('Waypost export (restore)');
    expect((await counters(page, 'waypost-export.zip'))['Points stored']).toBe('2');
    const restored = (await restore.locator('ul.restored li').allTextContents()).map((line) =>
      line.replace(/\s+/g, ' ').trim(),
    );
    expect(restored).toContain('Views: 1 restored, 0 already here, 0 not restored');
    expect(restored).toContain('Settings: 1 restored, 0 already here, 0 not restored');
    // Undone: only the points go, and the question says so.
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await restore.getByRole('button', { name: /^Undo/ }).click();
    await expect.poll(() => restore.count(), WAIT).toBe(0);
    expect(question).toBe(
      'Undo the import of waypost-export.zip? The 2 points it stored will be deleted; points that were already here stay. Restored posts, media, services and settings stay.',
    );
    await page.context().close();
  }, 120_000);

  it('is reached from Settings, says what a restore brings back, and is axe-clean at 360 and 1280 px, light and dark', async () => {
    const found: string[] = [];
    for (const width of [360, 1280]) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await signedIn(width, scheme);
        await page.goto(`${t.baseUrl}/app/settings`);
        await Promise.all([
          page.waitForURL(`${t.baseUrl}/app/imports`),
          page.getByRole('link', { name: 'Import a location history or restore an export' }).click(),
        ]);
        await expect.poll(() => card(page, 'Records.json').locator('.import-status').textContent(), WAIT).toBe('Done');
        expect(await page.getByRole('region', { name: 'Restoring an export' }).textContent()).toMatch(
          /settings and profile.*services.*groups.*views.*places.*media.*posts.*location point/s,
        );
        const { violations } = await new AxeBuilder({ page }).analyze();
        for (const v of violations) {
          found.push(`${width} ${scheme}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
        }
        await page.context().close();
      }
    }
    expect(found).toEqual([]);
  }, 120_000);
});
