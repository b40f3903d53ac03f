// The Map page and a date range in Chromium (docs/maps.md "The Map page"), offline (no basemap):
// a week in Amsterdam in June 2019 with the latest point in Berlin; the range's points alone,
// fitted and counted; drawn as points, lines and a heatmap; a day's points deleted from the
// range's list and a single point from its popup, each after a confirmation saying how many;
// axe-core at 360 and 1280 px, light and dark, with zero violations.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { listeningTestApp } from '../../../test/server.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { browserTest } from '../../../test/web.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const PER_DAY = 20;

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }), { person: true });
let token: string;

/** A day's walk through Amsterdam: PER_DAY points a minute apart, from 10:00 in Amsterdam. */
const walk = (day: string) =>
  Array.from({ length: PER_DAY }, (_, i) => ({
    time: Date.parse(`${day}T08:00:00Z`) / 1000 + i * 60,
    lat: 52.37 + i * 0.0004,
    lon: 4.89 + i * 0.0006,
    accuracy: 9,
  }));

beforeAll(async () => {
  token = await tokenFor(t, t.person, ['write_locations', 'get_private_scope', 'update_settings']);
  const call = async (method: 'POST' | 'GET', url: string, payload?: object) => {
    const response = await t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload });
    expect(response.statusCode).toBe(200);
    return response;
  };
  await call('POST', '/settings', { timezone: 'Europe/Amsterdam' });
  await call('POST', '/locations', [
    ...walk('2019-06-03'),
    ...walk('2019-06-04'),
    ...walk('2019-06-05'),
    // A lone point a week later, and the latest point, in Berlin years after.
    { time: Date.parse('2019-06-12T09:00:00Z') / 1000, lat: 52.36, lon: 4.9, accuracy: 5 },
    { time: Date.parse('2026-11-20T10:00:00Z') / 1000, lat: 52.52, lon: 13.405, accuracy: 5 },
  ]);
});

const open = (path: string, width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> =>
  t.signedIn({ context: { viewport: { width, height: 900 }, colorScheme }, path });

const map = (page: Page) => page.locator('[data-waypost-map]');

/** The points the map says it draws, once it has settled. */
async function drawn(page: Page): Promise<number> {
  await expect.poll(() => map(page).getAttribute('data-map-state'), WAIT).toBe('ready');
  await page.waitForTimeout(300);
  await expect.poll(() => map(page).getAttribute('data-map-state'), WAIT).toBe('ready');
  return Number(await map(page).getAttribute('data-points-drawn'));
}

/** How many points the API holds between two instants (seconds). */
async function stored(since: string, until: string): Promise<number> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/locations/private?count=1000&since_time=${Date.parse(since) / 1000}&until_time=${Date.parse(until) / 1000}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return response.json<unknown[]>().length;
}

const WEEK = '/app/map?from=2019-06-01&until=2019-06-07';

describe('the Map page with a date range', () => {
  it('shows only the range, fitted to its points and counted, as points, lines or a heatmap', async () => {
    const page = await open(WEEK);
    expect(await page.locator('#map-count').textContent()).toMatch(
      /^\s*60 points from Saturday, 1 June 2019 to Friday, 7 June 2019, public and private, at their exact places; the map is fitted to them\. Times are in Europe\/Amsterdam\.\s*$/,
    );
    // Every point of the range on screen (the map opened on them, not on Berlin), and no other.
    expect(await map(page).getAttribute('data-bounds')).toBe('4.89,52.37,4.9014,52.3776');
    await expect.poll(() => drawn(page), WAIT).toBe(60);

    for (const [label, draw] of [
      ['Heatmap', 'heat'],
      ['Lines', 'lines'],
      ['Points', 'points'],
    ] as const) {
      await page.getByRole('radio', { name: label }).check();
      expect(await map(page).getAttribute('data-draw')).toBe(draw);
      expect(new URL(page.url()).searchParams.get('draw')).toBe(draw === 'points' ? null : draw);
      await expect.poll(() => drawn(page), WAIT).toBe(60);
    }
    // A reload keeps the heatmap.
    await page.goto(`${t.baseUrl}${WEEK}&draw=heat`);
    expect(await page.getByRole('radio', { name: 'Heatmap' }).isChecked()).toBe(true);
    await expect.poll(() => drawn(page), WAIT).toBe(60);
    await page.context().close();
  });

  it("deletes a day's points from the range's list after a confirmation saying how many", async () => {
    const page = await open(WEEK);
    expect(await page.locator('.range-days tbody th').allTextContents()).toEqual([
      'Monday, 3 June 2019',
      'Tuesday, 4 June 2019',
      'Wednesday, 5 June 2019',
    ]);
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('button', { name: 'Delete 20 points of Tuesday, 4 June 2019' }).click(),
    ]);
    expect(question).toBe(
      'Delete the 20 points of Tuesday, 4 June 2019? Public and private points go; this cannot be undone.',
    );
    expect(await page.locator('#map-count').textContent()).toMatch(/^\s*40 points from Saturday, 1 June 2019/);
    await expect.poll(() => drawn(page), WAIT).toBe(40);
    expect(await stored('2019-06-03T22:00:00Z', '2019-06-04T22:00:00Z')).toBe(0);
    expect(await stored('2019-06-02T22:00:00Z', '2019-06-05T22:00:00Z')).toBe(40);
    expect(await page.locator('.range-days tbody th').allTextContents()).toEqual([
      'Monday, 3 June 2019',
      'Wednesday, 5 June 2019',
    ]);
    // Declining the range's delete keeps everything.
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: /^Delete these 40 points/ }).click();
    expect(question).toBe(
      'Delete all 40 points from Saturday, 1 June 2019 to Friday, 7 June 2019? Public and private points go; this cannot be undone.',
    );
    expect(await stored('2019-06-01T00:00:00Z', '2019-06-08T00:00:00Z')).toBe(40);
    await page.context().close();
  });

  it('deletes a single point from its popup', async () => {
    // A day with one point: the map is fitted to it, so it is in the middle.
    const page = await open('/app/map?from=2019-06-12&until=2019-06-12');
    expect(await page.locator('#map-count').textContent()).toMatch(/^\s*1 point on Wednesday, 12 June 2019, public/);
    await expect.poll(() => drawn(page), WAIT).toBe(1);
    const box = (await map(page).locator('canvas').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const remove = page.locator('.maplibregl-popup').getByRole('button', { name: 'Delete this point' });
    await remove.waitFor(WAIT);
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await remove.click();
    await expect.poll(() => page.locator('#map-status').textContent(), WAIT).toMatch(/^The point of .* was deleted\.$/);
    expect(question).toMatch(/^Delete the point of .*2019.*\? This cannot be undone\.$/);
    expect(await page.locator('#map-count').textContent()).toMatch(/^\s*0 points on Wednesday, 12 June 2019, public/);
    await expect.poll(() => drawn(page), WAIT).toBe(0);
    expect(await stored('2019-06-12T00:00:00Z', '2019-06-13T00:00:00Z')).toBe(0);
    await page.context().close();
  });

  it('is axe-clean with a range at 360 and 1280 px, light and dark', async () => {
    const found: string[] = [];
    for (const width of [360, 1280]) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await open(WEEK, width, scheme);
        await drawn(page);
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
