// A day and a year in review in Chromium, as a person uses them: the day's stays and trips with a
// post and a photo between them and its track drawn; a place named from the day (and a name the
// server refuses, shown beside the field with nothing else changed); a stay marked as none; the
// year's page; axe-core on both at phone (390 px) and desktop (1280 px) width.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { batches, offset, type Fix, commute } from '../../../test/days.ts';
import { insertItems } from '../../../test/items.ts';
import { uploadMedium } from '../../../test/media.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { browserTest, demoPhoto, webTestApp } from '../../../test/web.ts';
import type { Place } from '../../places/places.schemas.ts';
import { updateSettings } from '../../settings/settings.logic.ts';
import sharp from 'sharp';

const WAIT = { timeout: 20_000, interval: 100 };
const DAY = Date.parse('2024-05-06T00:00:00+02:00');
const H = 3_600_000;
const home = { lat: 52.52, lon: 13.405 };
const office = offset(home, 1500, 1500);
const PASSWORD = 'day test password';

function day(): Fix[] {
  return commute(DAY, { home, office }, 21);
}

const t = browserTest(() => webTestApp({ WAYPOST_MAP_STYLE: 'none' }), { person: { password: PASSWORD } });
let token: string;

beforeAll(async () => {
  const user = t.person;
  await updateSettings(t.database.db, user.id, { timezone: 'Europe/Berlin' });
  token = await tokenFor(t, user, ['get_private_scope', 'write_locations', 'upload_media']);
  for (const batch of batches(day())) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/locations',
      headers: { authorization: `Bearer ${token}` },
      payload: batch,
    });
    expect(response.statusCode).toBe(200);
  }
  // A note written on the way to work, and a photo at lunch whose file knows when, not where.
  const [postId] = await insertItems(t.database, 'posts', user.id, [{ scope: 'private', time: DAY + 8.25 * H }]);
  await t.database.db
    .updateTable('posts')
    .set({ text: 'Late again, taking the long way' })
    .where('id', '=', postId!)
    .execute();
  const photo = await sharp(await demoPhoto(160))
    .withExif({ IFD2: { DateTimeOriginal: '2024:05:06 12:30:00' } })
    .jpeg()
    .toBuffer();
  const uploaded = await uploadMedium(t, token, photo, 'lunch.jpg', 'image/jpeg', { caption: 'Lunch by the river' });
  expect(uploaded.statusCode).toBe(201);
});

const signedIn = (width: number, path: string): Promise<Page> =>
  t.signedIn({ context: { viewport: { width, height: 900 } }, path });

/** What the tests read of an element (the DOM types are not in this project's lib). */
interface ElementLike {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): ElementLike | null;
  querySelectorAll(selector: string): ArrayLike<ElementLike>;
}

/** The day's steps as the page lists them: a stay's or trip's heading, else the item's kind and what it says. */
const steps = (page: Page) =>
  page.locator('ol.story > li').evaluateAll((items) =>
    (items as unknown as ElementLike[]).map((li) => {
      const heading = li.querySelector('h3')?.textContent?.trim();
      if (heading) return `${li.getAttribute('data-kind')}: ${heading}`;
      const article = li.querySelector('article');
      const text =
        article?.querySelector('.text')?.textContent?.trim() ?? article?.querySelector('img')?.getAttribute('alt');
      return `${article?.getAttribute('data-kind')}: ${text}`;
    }),
  );

async function serious(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${page.url()}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe('a day and a year in the browser', () => {
  it('shows the stays and trips with the post and the photo between them, and the track', async () => {
    const page = await signedIn(1280, '/app/days/2024-05-06');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Monday, 6 May 2024');
    const walking = /^trip: Walking, 2\.\d km$/;
    const listed = await steps(page);
    expect(listed.length).toBe(7);
    expect(listed[0]).toBe('visit: Berlin');
    expect(listed[1]).toMatch(walking);
    expect(listed[2]).toBe('post: Late again, taking the long way');
    expect(listed[3]).toBe('visit: Berlin');
    expect(listed[4]).toBe('medium: Lunch by the river');
    expect(listed[5]).toMatch(walking);
    expect(listed[6]).toBe('visit: Berlin');
    const map = page.locator('[data-waypost-map]');
    await expect.poll(() => map.getAttribute('data-map-state'), WAIT).toBe('ready');
    await expect
      .poll(() => page.locator('#map-status').textContent(), WAIT)
      .toMatch(/^That day: \d+ points, 4\.\d km, \d+ minutes moving\.$/);
    await page.screenshot({ path: '/tmp/waypost-day-1280.png', fullPage: true });
    await page.context().close();
  }, 60_000);

  it('names a place from the day, refuses a blank name beside the field, and marks a stay as none', async () => {
    const page = await signedIn(390, '/app/days/2024-05-06');
    const atOffice = page.locator('ol.story > li[data-kind="visit"]').nth(1);
    await atOffice.getByText('Name or correct').click();
    const name = atOffice.getByLabel('Name of this place');

    // Blank after trimming: the browser lets it through, the API refuses it; the page says why.
    await name.fill('   ');
    await atOffice.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => atOffice.locator('.field-error').textContent(), WAIT).toBe('must not be blank');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await atOffice.locator('h3').textContent()).toBe('Berlin');

    await name.fill('Office');
    await Promise.all([page.waitForEvent('load'), atOffice.getByRole('button', { name: 'Save name' }).click()]);
    await page.reload();
    expect((await steps(page)).filter((step) => step.startsWith('visit'))).toEqual([
      'visit: Berlin',
      'visit: Office',
      'visit: Berlin',
    ]);
    const places = await t.app.inject({ method: 'GET', url: '/places', headers: { authorization: `Bearer ${token}` } });
    expect(
      places
        .json<Place[]>()
        .map((place) => place.name)
        .sort(),
    ).toEqual(['Office', null]);

    // The office was no stay: one trip from home to home, with the post and the photo on it.
    const office = page.locator('ol.story > li[data-kind="visit"]').nth(1);
    await office.getByText('Name or correct').click();
    await Promise.all([page.waitForEvent('load'), office.getByRole('button', { name: 'Not a stay' }).click()]);
    await page.reload();
    const listed = await steps(page);
    expect(listed.filter((step) => step.startsWith('visit'))).toEqual(['visit: Berlin', 'visit: Berlin']);
    expect(listed.filter((step) => step.startsWith('trip')).length).toBe(1);
    expect(listed.filter((step) => step.startsWith('post') || step.startsWith('medium')).length).toBe(2);
    await page.context().close();
  }, 60_000);

  it('renders the year, and both pages are axe-clean at 390 and 1280 px', async () => {
    const found: string[] = [];
    for (const width of [390, 1280]) {
      const page = await signedIn(width, '/app/years/2024');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('2024 in review');
      const countries = page.getByRole('region', { name: 'Countries' }).getByRole('row');
      const cells = await countries.evaluateAll((rows) =>
        (rows as unknown as ElementLike[]).map((row) =>
          Array.from(row.querySelectorAll('th, td'), (cell) => cell.textContent?.trim()),
        ),
      );
      expect(cells).toEqual([
        ['Country', 'Days there'],
        ['Germany', '1 day'],
      ]);
      await page
        .getByRole('navigation', { name: 'Months of 2024' })
        .getByRole('link', { name: 'May', exact: true })
        .click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('May 2024 in review');
      found.push(...(await serious(page)));
      await page.screenshot({ path: `/tmp/waypost-year-${width}.png`, fullPage: true });

      await page.goto(`${t.baseUrl}/app/days/2024-05-06`);
      await expect.poll(() => page.locator('[data-waypost-map]').getAttribute('data-map-state'), WAIT).toBe('ready');
      for (const summary of await page.locator('details.correct summary').all()) await summary.click();
      found.push(...(await serious(page)));
      await page.goto(`${t.baseUrl}/`);
      found.push(...(await serious(page)));
      await page.context().close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
