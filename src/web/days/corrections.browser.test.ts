// Correcting stays and places in Chromium, as a person does it: from a day's page, split a stay at
// a time of their zone, refuse a time outside it beside the field, move a stay to another place,
// make it one stay with the next; on the Places page, rename and merge; axe-core on both pages at
// phone (390 px) and desktop (1280 px) width. Each test has a person of its own and their day.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { batches, offset, type Fix, commute } from '../../../test/days.ts';
import { createTestUser } from '../../../test/helpers.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { browserTest, webTestApp } from '../../../test/web.ts';
import type { Place } from '../../places/places.schemas.ts';
import { updateSettings } from '../../settings/settings.logic.ts';
import type { VisitJson } from '../../visits/visits.schemas.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const DAY = Date.parse('2024-05-06T00:00:00+02:00');
const H = 3_600_000;
const home = { lat: 52.52, lon: 13.405 };
const office = offset(home, 1500, 1500);
const PASSWORD = 'corrections test password';
const range = `since_time=${DAY / 1000}&until_time=${(DAY + 24 * H) / 1000}`;

function day(seed: number): Fix[] {
  return commute(DAY, { home, office }, seed);
}

const t = browserTest(() => webTestApp({ WAYPOST_MAP_STYLE: 'none' }));

/** A person in Berlin with the day's points, signed in in a browser `width` px wide. */
async function person(seed: number, width = 390) {
  const user = await createTestUser(t.database, { password: PASSWORD });
  await updateSettings(t.database.db, user.id, { timezone: 'Europe/Berlin' });
  const token = await tokenFor(t, user, ['get_private_scope', 'write_locations']);
  const headers = { authorization: `Bearer ${token}` };
  for (const batch of batches(day(seed))) {
    const response = await t.app.inject({ method: 'POST', url: '/locations', headers, payload: batch });
    expect(response.statusCode).toBe(200);
  }
  const api = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
    const response = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    expect(response.statusCode).toBeLessThan(300);
    return response.json<T>();
  };
  const page = await t.signedIn({ as: user, context: { viewport: { width, height: 900 } } });
  return { api, page };
}

/** The headings of the day's stays, in order. */
const stays = (page: Page) => page.locator('ol.story > li[data-kind="visit"] h3').allTextContents();

/** Opens the panel of the day's `n`th stay. */
async function panel(page: Page, n: number) {
  const stay = page.locator('ol.story > li[data-kind="visit"]').nth(n);
  await stay.getByText('Name or correct').click();
  return stay;
}

/** Submits with a button whose form reloads the page on success, and waits for the new page. */
const reloading = (page: Page, click: () => Promise<void>) => Promise.all([page.waitForEvent('load'), click()]);

async function serious(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${page.url()}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe("correcting a day's stays in the browser", () => {
  it('splits a stay at a time of the zone; a time outside it is refused beside the field', async () => {
    const { api, page } = await person(31);
    await page.goto(`${t.baseUrl}/app/days/2024-05-06`);
    expect(await stays(page)).toEqual(['Berlin', 'Berlin', 'Berlin']);

    // 07:00 is before the office stay began (08:30): the API says so, beside the field.
    const atOffice = await panel(page, 1);
    const splitAt = atOffice.getByLabel('Split at');
    await splitAt.fill('2024-05-06T07:00');
    await atOffice.getByRole('button', { name: 'Split' }).click();
    await expect
      .poll(() => atOffice.locator('.field-error').textContent(), WAIT)
      .toBe('must be inside the visit, after its start and before its end');
    expect(await splitAt.getAttribute('aria-invalid')).toBe('true');
    expect(await stays(page)).toEqual(['Berlin', 'Berlin', 'Berlin']);

    // 13:00 in Berlin (11:00 UTC): two stays, the first ending and the second starting then.
    await splitAt.fill('2024-05-06T13:00');
    await reloading(page, () => atOffice.getByRole('button', { name: 'Split' }).click());
    expect(await stays(page)).toEqual(['Berlin', 'Berlin', 'Berlin', 'Berlin']);
    const visits = await api<VisitJson[]>('GET', `/locations/visits?${range}`);
    expect(visits.map((v) => v.end_time)[1]).toBe(Date.parse('2024-05-06T11:00:00Z') / 1000);
    expect(visits.map((v) => v.start_time)[2]).toBe(Date.parse('2024-05-06T11:00:00Z') / 1000);
    await page.context().close();
  }, 60_000);

  it('moves a stay to another place, whose name it then shows, and makes two stays one', async () => {
    const { api, page } = await person(32);
    // A café drawn 5 km away, far from every stay, so it takes none in by itself.
    const cafe = await api<Place>('POST', '/places', { name: 'Café', ...offset(home, -5000, 0), radius_m: 50 });
    await page.goto(`${t.baseUrl}/app/days/2024-05-06`);
    const before = await api<VisitJson[]>('GET', `/locations/visits?${range}`);
    const atOffice = await panel(page, 1);
    await atOffice.getByLabel('It was at…').selectOption(cafe.id);
    await reloading(page, () => atOffice.getByRole('button', { name: 'Move the stay' }).click());
    expect(await stays(page)).toEqual(['Berlin', 'Café', 'Berlin']);

    const morning = await panel(page, 0);
    await reloading(page, () => morning.getByRole('button', { name: 'One stay with the next' }).click());
    expect((await stays(page)).length).toBe(2);
    const visits = await api<VisitJson[]>('GET', `/locations/visits?${range}`);
    expect(visits.map((v) => [v.start_time, v.end_time])[0]).toEqual([before[0]!.start_time, before[1]!.end_time]);
    await page.context().close();
  }, 60_000);
});

describe('the Places page in the browser', () => {
  it('renames a place and merges another into it', async () => {
    const { api, page } = await person(33, 1280);
    const [first, atOffice] = await api<VisitJson[]>('GET', `/locations/visits?${range}`);
    await page.goto(`${t.baseUrl}/app/places`);
    const card = (id: string) => page.locator(`#place-${id}`);
    const homeCard = card(first!.place_id);
    await homeCard.getByLabel('Name', { exact: true }).fill('Home');
    await reloading(page, () => homeCard.getByRole('button', { name: 'Save name' }).click());
    expect(await page.locator('.places h2').allTextContents()).toEqual(['Home', 'Berlin']);

    const officeCard = card(atOffice!.place_id);
    await officeCard.getByLabel('Merge into').selectOption(first!.place_id);
    await reloading(page, () => officeCard.getByRole('button', { name: 'Merge' }).click());
    expect(await page.locator('.places h2').allTextContents()).toEqual(['Home']);
    expect(await homeCard.locator('.meta').textContent()).toMatch(/3 stays · radius 100 m/);

    await page.goto(`${t.baseUrl}/app/days/2024-05-06`);
    expect(await stays(page)).toEqual(['Home', 'Home', 'Home']);
    await page.context().close();
  }, 60_000);

  it('the Places page and the day with every panel open are axe-clean at 390 and 1280 px', async () => {
    const found: string[] = [];
    for (const width of [390, 1280]) {
      const { page } = await person(34 + width, width);
      await page.goto(`${t.baseUrl}/app/days/2024-05-06`);
      await expect.poll(() => page.locator('[data-waypost-map]').getAttribute('data-map-state'), WAIT).toBe('ready');
      for (const summary of await page.locator('details.correct summary').all()) await summary.click();
      found.push(...(await serious(page)));
      await page.screenshot({ path: `/tmp/waypost-day-corrections-${width}.png`, fullPage: true });
      await page.getByRole('link', { name: 'Places', exact: true }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Places');
      found.push(...(await serious(page)));
      await page.screenshot({ path: `/tmp/waypost-places-${width}.png`, fullPage: true });
      await page.context().close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
