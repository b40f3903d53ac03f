// The day, the year in review and the Timeline's day cards as HTML, through HTTP on both
// databases, over days generated with known stays (test/days.ts): home, a walk to the office,
// the office, the walk back, home, in Berlin's time zone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInThroughForm } from '../../../test/browser.ts';
import { batches, offset, type Fix, commute } from '../../../test/days.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { insertItems } from '../../../test/items.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { updateSettings } from '../../settings/settings.logic.ts';
import type { TripJson, VisitJson } from '../../visits/visits.schemas.ts';
import { clockOf } from '../time.ts';
import { distanceText } from './days.html.ts';

let t: TestApp;
const ZONE = 'Europe/Berlin';
/** Midnight starting 6 May 2024 in Berlin (UTC+2). */
const DAY = Date.parse('2024-05-06T00:00:00+02:00');
const H = 3_600_000;
const D = 24 * H;
const home = { lat: 52.52, lon: 13.405 };
const office = offset(home, 1500, 1500);

/** A day from `start`: home until 08:00, a 30-minute walk, the office until 17:00, the walk back, home. */
function day(start: number, seed: number, stepMs = 120_000, walkStepMs = 30_000): Fix[] {
  return commute(start, { home, office }, seed, stepMs, walkStepMs);
}

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } });
});
afterAll(() => t?.close());

/** A person in Berlin with the days' points sent as a tracker sends them, signed in in a browser. */
async function person(fixes: readonly Fix[]) {
  const user = await createTestUser(t.database);
  await updateSettings(t.database.db, user.id, { timezone: ZONE });
  const token = await tokenFor(t, user, ['get_private_scope', 'write_locations']);
  for (const batch of batches(fixes)) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/locations',
      headers: { authorization: `Bearer ${token}` },
      payload: batch,
    });
    expect(response.statusCode).toBe(200);
  }
  const browser = await signInThroughForm(t.app, user.username, user.password);
  const api = async <T>(url: string): Promise<T> => {
    const response = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    return response.json<T>();
  };
  const page = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
  /** A write through the JSON API as the page's script sends it: the session and its CSRF token. */
  const send = (url: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'sec-fetch-site': 'same-origin' },
      payload,
    });
  return { user, api, page, send };
}

const range = `since_time=${DAY / 1000}&until_time=${(DAY + D) / 1000}`;
/** What the page shows, in order: the kinds of the day's steps and the headings of the stays and trips. */
const kindsOf = (body: string) =>
  [...body.matchAll(/<li class="step[^"]*"(?: data-kind="(\w+)")?/g)].map((m) => m[1] ?? 'item');
const titlesOf = (body: string) => [...body.matchAll(/<h3 id="[^"]+-title">([^<]+)<\/h3>/g)].map((m) => m[1]);

describe('the day', () => {
  it('shows the stays and trips in order, with a post and a photo at their times, and the track', async () => {
    const { user, api, page } = await person(day(DAY, 1));
    // A post during the morning walk, a photo at noon at the office.
    await insertItems(t.database, 'posts', user.id, [{ scope: 'private', time: DAY + 8.25 * H }]);
    await insertItems(t.database, 'media', user.id, [{ scope: 'public', time: DAY + 12 * H }]);
    const visits = await api<VisitJson[]>(`/locations/visits?${range}`);
    const trips = await api<TripJson[]>(`/locations/trips?${range}`);
    expect([visits.length, trips.length]).toEqual([3, 2]);

    const response = await page('/app/days/2024-05-06');
    expect(response.statusCode).toBe(200);
    const body = response.body;
    expect(body).toContain('<title>Monday, 6 May 2024 · Waypost</title>');
    expect(kindsOf(body)).toEqual(['visit', 'trip', 'item', 'visit', 'item', 'trip', 'visit']);
    expect(body.indexOf('data-kind="post"')).toBeLessThan(body.indexOf('data-kind="medium"'));
    const walking = trips.map((trip) => `Walking, ${distanceText(trip.distance_m)}`);
    expect(titlesOf(body)).toEqual(['Berlin', walking[0], 'Berlin', walking[1], 'Berlin']);
    // The office stay from–to in Berlin's time, as the API's times say.
    const [, atOffice] = visits;
    const clock = (seconds: number) => clockOf(seconds * 1000, ZONE);
    expect(body).toMatch(
      new RegExp(`>${clock(atOffice!.start_time)}</time\\s*>–<time[^>]*>${clock(atOffice!.end_time)}</time`),
    );
    expect(body).toContain('From Berlin to Berlin');
    expect(body).toContain('3 stays, 2 trips');
    expect(body).toContain('times in Europe/Berlin');
    expect(body).toContain(`data-api="POST /places/${atOffice!.place_id}"`);
    expect(body).toContain(`data-api="POST /locations/visits/${atOffice!.id}"`);
    expect(body).toContain('data-track="/locations/tracks/2024-05-06?zoom=16"');
    expect(body).toMatch(/href="\/app\/days\/2024-05-05" rel="prev"\s*>← Sun 5 May</);
    expect(body).toMatch(/href="\/app\/days\/2024-05-07" rel="next"\s*>Tue 7 May</);
    expect(body).toContain('href="/app/years/2024?month=05"');
    expect(String(response.headers['content-security-policy'])).toContain("worker-src 'self'");
  });

  it('shows the name given through the API, and the day without a stay marked as none', async () => {
    const { api, page, send } = await person(day(DAY, 2));
    const [first, atOffice] = await api<VisitJson[]>(`/locations/visits?${range}`);
    const named = await send(`/places/${first!.place_id}`, { name: 'Home' });
    expect(named.statusCode).toBe(200);
    expect(
      titlesOf((await page('/app/days/2024-05-06')).body).filter((title) => !title!.startsWith('Walking')),
    ).toEqual(['Home', 'Berlin', 'Home']);
    const corrected = await send(`/locations/visits/${atOffice!.id}`, { not_a_stay: true });
    expect(corrected.statusCode).toBe(200);
    const after = (await page('/app/days/2024-05-06')).body;
    expect(kindsOf(after)).toEqual(['visit', 'trip', 'visit']);
    expect(after).toContain('From Home to Home');
    expect(after).toMatch(/value="Home"/);
  });

  it('a day without anything says so and draws no map; a date that is none is refused', async () => {
    const { page } = await person(day(DAY, 3));
    const empty = await page('/app/days/2023-01-01');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('Nothing on this day: no stays, trips, posts or media.');
    expect(empty.body).not.toContain('data-waypost-map');
    for (const date of ['2024-02-30', '6-5-2024', '0099-01-01', '9999-12-31']) {
      const refused = await page(`/app/days/${date}`);
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('The day must be a date as YYYY-MM-DD.');
    }
    const visitor = await t.app.inject({ method: 'GET', url: '/app/days/2024-05-06' });
    expect(visitor.body).toContain('Sign in to Waypost');
  });
});

describe('the year in review', () => {
  it('sums up the year and a month, with links to the months', async () => {
    const { page } = await person(day(DAY, 4));
    const year = await page('/app/years/2024');
    expect(year.statusCode).toBe(200);
    expect(year.body).toContain('<h1>2024 in review</h1>');
    expect(year.body).toMatch(/<td class="text">Germany<\/td>\s*<td class="num">1 day<\/td>/);
    expect(year.body).toMatch(
      /<td class="text">Berlin<\/td>\s*<td class="text">Germany<\/td>\s*<td class="num">1 day<\/td>/,
    );
    expect(year.body).toMatch(
      /<td class="text">Walking<\/td>\s*<td class="num">[\d.]+ km<\/td>\s*<td class="num">100 %<\/td>/,
    );
    expect(year.body).toMatch(
      /Walking, [\d.]+ km in\s+\d+ min, on\s+<a href="\/app\/days\/2024-05-06">Monday, 6 May 2024<\/a>/,
    );
    expect([...year.body.matchAll(/<li><strong>Berlin<\/strong>/g)].length).toBe(2);
    expect(year.body).toMatch(/<a href="\/app\/years\/2024"\s+aria-current="page"\s*>Whole year<\/a>/);
    expect(year.body).toContain('href="/app/years/2023" rel="prev"');

    const may = await page('/app/years/2024?month=05');
    expect(may.statusCode).toBe(200);
    expect(may.body).toContain('<h1>May 2024 in review</h1>');
    expect(may.body).toMatch(/href="\/app\/years\/2024\?month=05"\s+aria-current="page"\s*>May</);
    const june = await page('/app/years/2024?month=6');
    expect(june.body).toContain('No stays or trips in June 2024.');

    for (const url of ['/app/years/1800', '/app/years/24', '/app/years/2024?month=13', '/app/years/2024?month=x']) {
      expect((await page(url)).statusCode).toBe(400);
    }
    const current = await page('/app/years');
    expect(current.statusCode).toBe(200);
    expect(current.body).toMatch(/No stays or trips in \d{4}\./);
    expect(current.body).toMatch(/<a href="\/app\/years"\s+aria-current="page">Year<\/a>/);
  });
});

describe('the Timeline', () => {
  it('shows each day once as a card of stays and trips, across pages, and no card per point', async () => {
    const days = 16;
    const fixes = Array.from({ length: days }, (_, i) => day(DAY + i * D, 10 + i, 300_000, 60_000)).flat();
    const { user, page } = await person(fixes);
    await insertItems(t.database, 'posts', user.id, [{ scope: 'public', time: DAY + 3 * D + 9 * H }]);
    const cards: string[] = [];
    let url: string | undefined = '/';
    let pages = 0;
    while (url) {
      const body: string = (await page(url)).body;
      cards.push(
        ...[...body.matchAll(/<article class="card day-card" data-kind="day" data-day="([\d-]+)"/g)].map((m) => m[1]!),
      );
      expect(body).not.toContain('Location ·');
      url = /<a class="button secondary" href="([^"]+)" data-more>/.exec(body)?.[1]?.replaceAll('&amp;', '&');
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    const expected = Array.from({ length: days }, (_, i) =>
      new Date(DAY + (days - 1 - i) * D + 12 * H).toISOString().slice(0, 10),
    );
    expect(cards).toEqual(expected);

    const first = (await page('/')).body;
    expect(first).toContain('<h2><a href="/app/days/2024-05-21">Tuesday, 21 May 2024</a></h2>');
    expect(first).toMatch(/Where you were · 3 stays, 2 trips, [\d.]+ km/);
    const withPost = (await page('/?date=2024-05-09')).body;
    expect(withPost).toContain('data-kind="post"');
    const onlyPublic = (await page('/?kind=locations&scope=public')).body;
    expect(onlyPublic).toContain('Stays and trips are never public');
    expect(onlyPublic).not.toContain('day-card');
  });
});
