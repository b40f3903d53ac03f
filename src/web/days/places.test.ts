// The Places page and the day's correction forms as HTML, through HTTP on both databases, over a
// day generated with known stays (test/days.ts): home, the office, home, in Berlin's time zone.
// The writes go as the page's script sends them: the session, its CSRF token, the forms' bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInThroughForm } from '../../../test/browser.ts';
import { batches, offset, type Fix, commute } from '../../../test/days.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { tokenFor } from '../../../test/tokens.ts';
import type { Place } from '../../places/places.schemas.ts';
import { updateSettings } from '../../settings/settings.logic.ts';
import type { VisitJson } from '../../visits/visits.schemas.ts';

let t: TestApp;
const DAY = Date.parse('2024-05-06T00:00:00+02:00');
const H = 3_600_000;
const home = { lat: 52.52, lon: 13.405 };
const office = offset(home, 1500, 1500);
const range = `since_time=${DAY / 1000}&until_time=${(DAY + 24 * H) / 1000}`;

function day(seed: number): Fix[] {
  return commute(DAY, { home, office }, seed);
}

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } });
});
afterAll(() => t?.close());

async function person(seed: number) {
  const user = await createTestUser(t.database);
  await updateSettings(t.database.db, user.id, { timezone: 'Europe/Berlin' });
  const token = await tokenFor(t, user, ['get_private_scope', 'write_locations']);
  const bearer = { authorization: `Bearer ${token}` };
  for (const batch of batches(day(seed))) {
    const response = await t.app.inject({ method: 'POST', url: '/locations', headers: bearer, payload: batch });
    expect(response.statusCode).toBe(200);
  }
  const browser = await signInThroughForm(t.app, user.username, user.password);
  const api = async <T>(url: string): Promise<T> => {
    const response = await t.app.inject({ method: 'GET', url, headers: bearer });
    expect(response.statusCode).toBe(200);
    return response.json<T>();
  };
  const page = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
  const send = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url,
      headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'sec-fetch-site': 'same-origin' },
      ...(payload ? { payload } : {}),
    });
  return { api, page, send };
}

/** The places' headings and what each card's meta line says, in the page's order. */
const cardsOf = (body: string) =>
  [...body.matchAll(/<h2 id="place-[^"]+-title">([^<]+)<\/h2>\s*<p class="meta">\s*([^<]+?)\s*<\/p>/g)].map(
    (m) => `${m[1]}: ${m[2]}`,
  );

describe('the Places page', () => {
  it('lists every place, named first, with its stays and radius and a form for each change', async () => {
    const { api, page, send } = await person(1);
    const [first, atOffice] = await api<VisitJson[]>(`/locations/visits?${range}`);
    const drawn = await send('POST', '/places', { name: 'Gym', lat: 52.53, lon: 13.41, radius_m: 50 });
    expect(drawn.statusCode).toBe(201);
    const gym = drawn.json<Place>();

    const response = await page('/app/places');
    expect(response.statusCode).toBe(200);
    const body = response.body;
    expect(body).toContain('<title>Places · Waypost</title>');
    expect(body).toContain('3 places, found from your stays or named by you.');
    expect(cardsOf(body)).toEqual([
      'Gym: Berlin, Germany · 0 stays · radius 50 m',
      'Berlin: Germany · not named yet · 2 stays · radius 100 m',
      'Berlin: Germany · not named yet · 1 stay · radius 100 m',
    ]);
    for (const id of [first!.place_id, atOffice!.place_id, gym.id]) {
      expect(body.split(`data-api="POST /places/${id}"`).length - 1).toBe(3);
      expect(body).toContain(`data-delete="/places/${id}"`);
    }
    expect(body).toMatch(/name="radius_m"[^>]*min="10"\s+max="5000"/);
    // The office's merge select: the gym and home, nearest first, named first.
    const officeMerge = new RegExp(`id="place-${atOffice!.place_id}-merge"[^>]*>([\\s\\S]*?)</select>`).exec(body)![1]!;
    expect([...officeMerge.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1])).toEqual([gym.id, first!.place_id]);
    expect(body).toMatch(/<a href="\/app\/years"\s+aria-current="page">Year<\/a>/);

    const visitor = await t.app.inject({ method: 'GET', url: '/app/places' });
    expect(visitor.body).toContain('Sign in to Waypost');
  });

  it('renames, forgets a name, changes a radius, merges and deletes as its forms send them', async () => {
    const { api, page, send } = await person(2);
    const [first, atOffice] = await api<VisitJson[]>(`/locations/visits?${range}`);
    const homeId = first!.place_id;
    const officeId = atOffice!.place_id;
    expect((await send('POST', `/places/${officeId}`, { name: 'Office' })).statusCode).toBe(200);
    expect((await send('POST', `/places/${homeId}`, { radius_m: 250 })).statusCode).toBe(200);
    expect(cardsOf((await page('/app/places')).body)).toEqual([
      'Office: Berlin, Germany · 1 stay · radius 100 m',
      'Berlin: Germany · not named yet · 2 stays · radius 250 m',
    ]);
    // An emptied name field is sent as null: the place goes by its town again.
    expect((await send('POST', `/places/${officeId}`, { name: null })).statusCode).toBe(200);
    const refused = await send('POST', `/places/${homeId}`, { radius_m: 5001 });
    expect(refused.statusCode).toBe(400);
    expect(cardsOf((await page('/app/places')).body)).toEqual([
      'Berlin: Germany · not named yet · 2 stays · radius 250 m',
      'Berlin: Germany · not named yet · 1 stay · radius 100 m',
    ]);

    expect((await send('POST', `/places/${officeId}`, { merge_into: homeId })).statusCode).toBe(200);
    const merged = (await page('/app/places')).body;
    expect(cardsOf(merged)).toEqual(['Berlin: Germany · not named yet · 3 stays · radius 250 m']);
    expect(merged).not.toContain('name="merge_into"');

    expect((await send('DELETE', `/places/${homeId}`)).statusCode).toBe(204);
    expect((await page('/app/places')).body).not.toContain(`id="place-${homeId}"`);
  });
});

describe('many places', () => {
  it('shows them 50 a page with links between pages, and finds them by name or town without accents', async () => {
    const { page, send } = await person(4);
    // Two from the day's stays, and 118 drawn: 120, so three pages.
    for (let i = 1; i <= 118; i += 1) {
      const name = i === 7 ? 'Café Zürich' : `Spot ${String(i).padStart(3, '0')}`;
      const drawn = await send('POST', '/places', { name, lat: 52.4 + i / 1000, lon: 13.3, radius_m: 50 });
      expect(drawn.statusCode).toBe(201);
    }
    const first = (await page('/app/places')).body;
    expect(first).toContain('120 places, found from your stays or named by you.');
    expect(cardsOf(first)).toHaveLength(50);
    expect(cardsOf(first)[0]).toBe('Café Zürich: Berlin, Germany · 0 stays · radius 50 m');
    expect(first).toContain('Page 1 of 3');
    expect(first).toContain('<a href="/app/places?page=2" rel="next">Page 2 →</a>');
    expect(first).not.toContain('rel="prev"');

    const last = (await page('/app/places?page=3')).body;
    expect(cardsOf(last)).toHaveLength(20);
    expect(cardsOf(last).slice(-2)).toEqual([
      'Berlin: Germany · not named yet · 2 stays · radius 100 m',
      'Berlin: Germany · not named yet · 1 stay · radius 100 m',
    ]);
    expect(last).toContain('<a href="/app/places?page=2" rel="prev">← Page 2</a>');
    expect(last).not.toContain('rel="next"');
    expect(cardsOf((await page('/app/places?page=4')).body)).toEqual([]);

    const zurich = (await page('/app/places?q=zurich')).body;
    expect(cardsOf(zurich)).toEqual(['Café Zürich: Berlin, Germany · 0 stays · radius 50 m']);
    expect(zurich).toContain('1 place matches “zurich”.');
    const spots = (await page('/app/places?q=spot%2011')).body;
    expect(cardsOf(spots).map((card) => card.split(':')[0])).toEqual([
      'Spot 110',
      'Spot 111',
      'Spot 112',
      'Spot 113',
      'Spot 114',
      'Spot 115',
      'Spot 116',
      'Spot 117',
      'Spot 118',
    ]);
    expect(cardsOf((await page('/app/places?q=berlin&page=2')).body)).toHaveLength(50);

    for (const url of ['/app/places?page=0', '/app/places?page=x', `/app/places?q=${'a'.repeat(101)}`]) {
      const refused = await page(url);
      expect(refused.statusCode).toBe(400);
    }
  });
});

describe("the day's corrections", () => {
  it('offers every place, a split time inside the stay and one stay with the next where there is one', async () => {
    const { api, page, send } = await person(3);
    const visits = await api<VisitJson[]>(`/locations/visits?${range}`);
    const [first, atOffice, last] = visits;
    expect((await send('POST', `/places/${atOffice!.place_id}`, { name: 'Office' })).statusCode).toBe(200);
    const body = (await page('/app/days/2024-05-06')).body;
    // Three stays: "It was at…" and "Split at" on each, "One stay with the next" on the first two.
    expect(body.split('>It was at…</label>').length - 1).toBe(3);
    expect(body.split('>Split at</label>').length - 1).toBe(3);
    expect(body).toContain(`name="merge_with" value="${atOffice!.id}"`);
    expect(body).toContain(`name="merge_with" value="${last!.id}"`);
    expect(body.split('One stay with the next</button>').length - 1).toBe(2);
    expect(body).toContain('<optgroup label="Named"><option value="');
    const officeSelect = new RegExp(`id="visit-${atOffice!.id}-place"[^>]*>([\\s\\S]*?)</select>`).exec(body)![1]!;
    expect(
      [...officeSelect.matchAll(/<option value="([^"]+)"\s*(selected)?\s*>([^<]+)</g)].map((m) => [
        m[1],
        m[2],
        m[3]!.trim(),
      ]),
    ).toEqual([
      [atOffice!.place_id, 'selected', 'Office, 0 m away'],
      [first!.place_id, undefined, 'Berlin (unnamed), 2.1 km away'],
    ]);
    // The office's middle, 12:45 in Berlin, in the datetime-local field with the zone to read it in.
    expect(body).toMatch(
      new RegExp(
        `id="visit-${atOffice!.id}-split"[^>]*value="2024-05-06T12:4\\d"\\s+data-type="local-time"\\s+data-zone="Europe/Berlin"`,
      ),
    );
    expect(body).toContain('<a href="/app/places">Places</a>');

    // What the split form sends: the stay becomes two.
    const split = await send('POST', `/locations/visits/${atOffice!.id}`, { split_at: DAY / 1000 + 13 * 3600 });
    expect(split.statusCode).toBe(200);
    const after = (await page('/app/days/2024-05-06')).body;
    expect([...after.matchAll(/<h3 id="visit-[^"]+-title">([^<]+)</g)].map((m) => m[1])).toEqual([
      'Berlin',
      'Office',
      'Office',
      'Berlin',
    ]);
  });
});
