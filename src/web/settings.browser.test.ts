// The Settings page's maps in Chromium (docs/maps.md "The Settings page"), offline (no basemap):
// a privacy zone placed by clicking the map, saved, seen after a reload and deleted, with its
// effect on the public GeoJSON; a server error beside the field; the zones by keyboard alone;
// the precision preview computed by the server's own rounding; axe at desktop and phone width.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { roundPoint } from '../privacy/precision.ts';
import { insertItems } from '../../test/items.ts';
import { listeningTestApp } from '../../test/server.ts';
import { browserTest } from '../../test/web.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const HOME = { lat: 52.52, lon: 13.405 };
const AWAY = { lat: 48.85, lon: 2.29 };
const SHOTS = process.env.WAYPOST_SHOTS_DIR;

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }), { person: true });

beforeAll(async () => {
  // The latest point is at home, where the zone map opens; another one far away.
  await insertItems(t.database, 'locations', t.person.id, [
    { scope: 'public', ...AWAY, time: 1_700_000_000_000 },
    { scope: 'public', ...HOME, time: 1_700_000_600_000 },
  ]);
});

async function settings(width = 1280): Promise<Page> {
  const page = await t.signedIn({ context: { viewport: { width, height: 900 } }, path: '/app/settings' });
  for (const id of ['zones-map', 'precision-map']) {
    await expect.poll(() => page.locator(`#${id}`).getAttribute('data-map-state'), WAIT).toBe('ready');
  }
  return page;
}

/** Where the zone map is on screen (scrolled into view: a click lands only on what is shown). */
async function mapBox(page: Page) {
  const canvas = page.locator('#zones-map canvas');
  await canvas.scrollIntoViewIfNeeded();
  return (await canvas.boundingBox())!;
}

/** What a stranger reads: the public GeoJSON's coordinates. */
async function publicPlaces(): Promise<number[][]> {
  const response = await fetch(`${t.baseUrl}/locations/public/${t.person.username}`, {
    headers: { accept: 'application/geo+json' },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { features: { geometry: { coordinates: number[] } }[] };
  return body.features.map((feature) => feature.geometry.coordinates);
}

const served = (place: { lat: number; lon: number }, precision = 1000) => {
  const rounded = roundPoint(place.lat, place.lon, precision);
  return [rounded.lon, rounded.lat];
};

async function savedZones(): Promise<unknown> {
  const page = await settings();
  const zones = await page.evaluate(
    async () => ((await (await fetch('/settings')).json()) as { privacy_zones: unknown }).privacy_zones,
  );
  await page.context().close();
  return zones;
}

describe('the Settings page', () => {
  it('places a zone by a click on the map, saves it, shows it after a reload, and deletes it', async () => {
    expect(await publicPlaces()).toEqual([served(HOME), served(AWAY)]);
    const page = await settings();
    expect(await page.locator('#zones-empty').isVisible()).toBe(true);
    expect(await page.locator('#zones-map').getAttribute('data-zones-drawn')).toBe('0');

    // The map opens at the latest point: a click in its middle places a zone there.
    const box = await mapBox(page);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.locator('[data-zone]').count(), WAIT).toBe(1);
    expect(await page.locator('#zones-map').getAttribute('data-zones-drawn')).toBe('1');
    const lat = Number(await page.locator('#zone-0-lat').inputValue());
    const lon = Number(await page.locator('#zone-0-lon').inputValue());
    expect(Math.abs(lat - HOME.lat)).toBeLessThan(0.002);
    expect(Math.abs(lon - HOME.lon)).toBeLessThan(0.002);
    expect(await page.locator('#zone-0-name').inputValue()).toBe('Zone 1');
    await page.locator('#zone-0-name').fill('Home');
    await page.locator('#zone-0-radius_m').fill('300');
    expect(await page.locator('#zone-0-radius_range').inputValue()).toBe('300');
    await page.getByRole('button', { name: 'Save zones' }).click();
    await expect.poll(() => page.locator('#zones-form [role="status"]').textContent(), WAIT).toBe('Zones saved.');

    // Strangers no longer see the point at home; the other one stays.
    expect(await publicPlaces()).toEqual([served(AWAY)]);
    await page.reload();
    await expect.poll(() => page.locator('#zones-map').getAttribute('data-zones-drawn'), WAIT).toBe('1');
    expect(await page.locator('#zone-0-name').inputValue()).toBe('Home');
    expect(await page.locator('#zone-0-radius_m').inputValue()).toBe('300');
    expect(await page.locator('#zone-0-lat').inputValue()).toBe(String(lat));
    expect(await page.locator('#zones-empty').isVisible()).toBe(false);
    if (SHOTS) await page.locator('#zones-form').screenshot({ path: `${SHOTS}/settings-zone.png` });

    // Moved by a click after "Move on the map", then deleted.
    await page.getByRole('button', { name: 'Move on the map' }).click();
    expect(await page.getByRole('button', { name: 'Move on the map' }).getAttribute('aria-pressed')).toBe('true');
    const again = await mapBox(page);
    await page.mouse.click(again.x + again.width / 2 + 100, again.y + again.height / 2);
    await expect.poll(() => page.locator('#zone-0-lon').inputValue(), WAIT).not.toBe(String(lon));
    expect(await page.locator('[data-zone]').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Move on the map' }).getAttribute('aria-pressed')).toBe('false');
    await page.getByRole('button', { name: 'Delete zone' }).click();
    expect(await page.locator('[data-zone]').count()).toBe(0);
    expect(await page.locator('#zones-map').getAttribute('data-zones-drawn')).toBe('0');
    await page.getByRole('button', { name: 'Save zones' }).click();
    await expect.poll(() => page.locator('#zones-form [role="status"]').textContent(), WAIT).toBe('Zones saved.');
    await page.reload();
    expect(await page.locator('[data-zone]').count()).toBe(0);
    expect(await publicPlaces()).toEqual([served(HOME), served(AWAY)]);
    await page.context().close();
  }, 120_000);

  it('works by keyboard alone, and shows the server’s error beside the field', async () => {
    const page = await settings();
    await page.getByRole('button', { name: 'Add a zone' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement?.id'), WAIT).toBe('zone-0-name');
    await page.keyboard.type('Work');
    await page.locator('#zone-0-lat').fill(String(AWAY.lat));
    await page.locator('#zone-0-lon').fill(String(AWAY.lon));
    await page.locator('#zone-0-radius_m').fill('5001');
    await page.getByRole('button', { name: 'Save zones' }).click();
    await expect.poll(() => page.locator('#zone-0-radius_m-error').textContent(), WAIT).toBe('must be <= 5000');
    expect(await page.locator('#zone-0-radius_m').getAttribute('aria-invalid')).toBe('true');
    expect(await savedZones()).toEqual([]);

    await page.locator('#zone-0-radius_m').fill('150');
    await page.getByRole('button', { name: 'Save zones' }).click();
    await expect.poll(() => page.locator('#zones-form [role="status"]').textContent(), WAIT).toBe('Zones saved.');
    expect(await page.locator('#zone-0-radius_m-error').count()).toBe(0);
    expect(await savedZones()).toEqual([{ name: 'Work', ...AWAY, radius_m: 150 }]);
    expect(await publicPlaces()).toEqual([served(HOME)]);

    await page.getByRole('button', { name: 'Delete zone' }).click();
    await page.getByRole('button', { name: 'Save zones' }).click();
    await expect.poll(() => savedZones(), WAIT).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('previews the public precision with the server’s rounding, as the choice changes', async () => {
    const page = await settings();
    const map = page.locator('#precision-map');
    const text = page.locator('#precision-preview');
    const shown = (precision: number) => {
      const place = roundPoint(HOME.lat, HOME.lon, precision);
      return `${place.lat},${place.lon}`;
    };
    await expect.poll(() => map.getAttribute('data-served'), WAIT).toBe(shown(1000));
    await page.getByLabel('Round public places to').selectOption('50000');
    expect(await map.getAttribute('data-served')).toBe(shown(50000));
    expect(await text.textContent()).toContain(
      `is shown to strangers at ${roundPoint(HOME.lat, HOME.lon, 50000).lat.toFixed(5)}`,
    );
    await page.getByLabel('Round public places to').selectOption('0');
    expect(await map.getAttribute('data-served')).toBe(`${HOME.lat},${HOME.lon}`);
    expect(await text.textContent()).toBe(
      'Your latest point (52.52000, 13.40500) is shown to strangers exactly where it is.',
    );
    await page.context().close();
  }, 60_000);

  for (const width of [1280, 360]) {
    it(`has no serious or critical accessibility violation at ${width} px, maps drawn`, async () => {
      const page = await settings(width);
      await page.getByRole('button', { name: 'Add a zone' }).click();
      const { violations } = await new AxeBuilder({ page }).analyze();
      const found = violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      expect(found).toEqual([]);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/settings-${width}.png`, fullPage: true });
      await page.context().close();
    }, 60_000);
  }
});
