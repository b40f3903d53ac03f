// Visits, trips, places and the year in review through HTTP, on a day generated with known
// stays (test/days.ts): home, a walk to the office, the office, the walk back, home.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batches, offset, seeded, stay, walk, type Fix, commute } from '../../test/days.ts';
import { simulate } from '../../bench/visits-sim.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import type { Permission } from '../core/permissions.ts';
import { distanceM } from '../lib/distance.ts';
import type { Place } from '../places/places.schemas.ts';
import type { Medium } from '../media/media.schemas.ts';
import { detect, type DetectorPoint } from './detect.ts';
import type { Summary, TripJson, VisitJson } from './visits.schemas.ts';

let t: TestApp;
const DAY = Date.parse('2024-05-06T00:00:00Z');
const H = 3_600_000;
const home = { lat: 52.52, lon: 13.405 };
const office = offset(home, 1500, 1500);
const WALK_M = distanceM(home, office);

/** The day: home until 08:00, a 30-minute walk, the office until 17:00, the walk back, home. */
function day(seed: number, stepMs = 120_000): Fix[] {
  return commute(DAY, { home, office }, seed, stepMs);
}

async function person(permissions: Permission[] = ['get_private_scope', 'write_locations']) {
  const user = await createTestUser(t.database);
  return { user, token: await tokenFor(t, user, permissions) };
}

const auth = (token: string | undefined) => (token ? { authorization: `Bearer ${token}` } : {});
const get = (url: string, token?: string) => t.app.inject({ method: 'GET', url, headers: auth(token) });
const post = (url: string, token: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url, headers: auth(token), payload: payload as object });

async function send(token: string, fixes: readonly Fix[]) {
  for (const batch of batches(fixes)) {
    const response = await post('/locations', token, batch);
    expect(response.statusCode).toBe(200);
  }
}

const range = `since_time=${DAY / 1000}&until_time=${(DAY + 24 * H) / 1000}`;
async function visitsOf(token: string): Promise<VisitJson[]> {
  const response = await get(`/locations/visits?${range}`, token);
  expect(response.statusCode).toBe(200);
  return response.json();
}
async function tripsOf(token: string): Promise<TripJson[]> {
  const response = await get(`/locations/trips?${range}`, token);
  expect(response.statusCode).toBe(200);
  return response.json();
}
const seconds = (iso: string) => Date.parse(iso) / 1000;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

describe('visits and trips of a generated day', () => {
  it('finds home, the office and home again, and the two walks between them', async () => {
    const { token } = await person();
    await send(token, day(1));
    const visits = await visitsOf(token);
    expect(visits.length).toBe(3);
    expect(visits[0]!.place_id).toBe(visits[2]!.place_id);
    expect(visits[1]!.place_id).not.toBe(visits[0]!.place_id);
    expect(visits[0]!.place).toMatchObject({ city: 'Berlin', country: 'DE', name: null });
    expect(Math.abs(visits[0]!.end_time - seconds('2024-05-06T08:00:00Z'))).toBeLessThanOrEqual(180);
    expect(Math.abs(visits[1]!.start_time - seconds('2024-05-06T08:30:00Z'))).toBeLessThanOrEqual(180);
    expect(Math.abs(visits[1]!.end_time - seconds('2024-05-06T17:00:00Z'))).toBeLessThanOrEqual(180);
    expect(distanceM(visits[1]!, office)).toBeLessThan(30);

    const trips = await tripsOf(token);
    expect(trips.map((trip) => trip.mode)).toEqual(['walking', 'walking']);
    for (const trip of trips) expect(Math.abs(trip.distance_m - WALK_M) / WALK_M).toBeLessThan(0.05);
    expect(trips[0]).toMatchObject({ from_visit_id: visits[0]!.id, to_visit_id: visits[1]!.id });
    expect(trips[1]).toMatchObject({ from_visit_id: visits[1]!.id, to_visit_id: visits[2]!.id });
  });

  it('gives the same visits for points sent newest first, and for two trackers at once', async () => {
    const a = await person();
    const b = await person();
    const c = await person();
    const fixes = day(2);
    await send(a.token, fixes);
    await send(b.token, [...fixes].reverse());
    // A second tracker in the same pocket: its own noise, 20 seconds later each time.
    const second = day(3).map((fix) => ({ ...fix, time: fix.time + 20_000 }));
    await send(
      c.token,
      [...fixes, ...second].sort((x, y) => x.time - y.time),
    );
    const shape = (visits: VisitJson[]) =>
      visits.map(({ start_time, end_time, lat, lon, point_count }) => ({
        start_time,
        end_time,
        lat,
        lon,
        point_count,
      }));
    const inOrder = await visitsOf(a.token);
    expect(shape(await visitsOf(b.token))).toEqual(shape(inOrder));
    const both = await visitsOf(c.token);
    expect(both.length).toBe(inOrder.length);
    for (const [i, visit] of both.entries()) {
      expect(Math.abs(visit.start_time - inOrder[i]!.start_time)).toBeLessThanOrEqual(180);
      expect(Math.abs(visit.end_time - inOrder[i]!.end_time)).toBeLessThanOrEqual(180);
    }
  });
});

describe('detected again where the points changed', () => {
  /** What detecting every point at once finds, as the API gives it. */
  function detectedAtOnce(points: DetectorPoint[]) {
    const found = detect(points);
    return {
      visits: found.visits.map((v) => [Math.round(v.start) / 1000, Math.round(v.end) / 1000, v.pointCount]),
      trips: found.trips.map((trip) => [
        Math.round(trip.start) / 1000,
        Math.round(trip.end) / 1000,
        trip.distanceM,
        trip.mode,
      ]),
    };
  }

  async function stored(token: string, since: number, until: number) {
    const query = `since_time=${since / 1000}&until_time=${until / 1000}&count=1000`;
    const visits = await get(`/locations/visits?${query}`, token);
    const trips = await get(`/locations/trips?${query}`, token);
    expect(visits.statusCode).toBe(200);
    expect(trips.statusCode).toBe(200);
    return {
      visits: visits.json<VisitJson[]>().map((v) => [v.start_time, v.end_time, v.point_count]),
      trips: trips.json<TripJson[]>().map((trip) => [trip.start_time, trip.end_time, trip.distance_m, trip.mode]),
    };
  }

  it('stores what detecting everything at once finds, after each batch of a live tracker, and for batches newest first', async () => {
    // Three simulated days of a phone: stays, trips by several modes, noise, sleep and outliers.
    const points = simulate({ seed: 5, days: 3 }).points.map((p) => ({ ...p, time: Math.round(p.time) }));
    const since = points[0]!.time - H;
    const until = points.at(-1)!.time + H;
    const sent = (ps: DetectorPoint[]) =>
      ps.map((p) => ({ time: p.time / 1000, lat: p.lat, lon: p.lon, accuracy: p.accuracy }));
    const expected = detectedAtOnce(points);
    expect(expected.visits.length).toBeGreaterThan(6);

    const live = await person();
    const late = await person();
    const chunks = [];
    for (let i = 0; i < points.length; i += 100) chunks.push(points.slice(i, i + 100));
    for (const [who, order] of [
      [live, chunks],
      [late, [...chunks].reverse()],
    ] as const) {
      for (const chunk of order) {
        expect((await post('/locations', who.token, sent(chunk))).statusCode).toBe(200);
        // Each read detects again what the batch changed.
        await stored(who.token, since, until);
      }
      expect(await stored(who.token, since, until)).toEqual(expected);
    }
  });
});

describe('corrections', () => {
  it('a visit marked as no stay stays gone when its day is detected again', async () => {
    const { token } = await person();
    await send(token, day(4));
    const [, atOffice] = await visitsOf(token);
    const corrected = await post(`/locations/visits/${atOffice!.id}`, token, { not_a_stay: true });
    expect(corrected.statusCode).toBe(200);
    expect(corrected.json()).toEqual([]);
    expect((await visitsOf(token)).length).toBe(2);
    const trips = await tripsOf(token);
    expect(trips.length).toBe(1);
    // New points on the same day: it is detected again, and the correction holds.
    await send(token, stay(home, DAY + 23.99 * H, DAY + 24 * H, seeded(9), 10_000));
    expect((await visitsOf(token)).length).toBe(2);
    expect((await tripsOf(token)).length).toBe(1);
  });

  it('a visit split in two, and a place named and merged, hold after new points', async () => {
    const { token } = await person();
    await send(token, day(5));
    const [first] = await visitsOf(token);
    const split = await post(`/locations/visits/${first!.id}`, token, { split_at: seconds('2024-05-06T04:00:00Z') });
    expect(split.statusCode).toBe(200);
    expect(split.json<VisitJson[]>().map((visit) => visit.end_time - visit.start_time)).toEqual([
      seconds('2024-05-06T04:00:00Z') - first!.start_time,
      first!.end_time - seconds('2024-05-06T04:00:00Z'),
    ]);
    const created = await post('/places', token, { name: 'Home', lat: home.lat, lon: home.lon });
    expect(created.statusCode).toBe(201);
    const named = created.json<Place>();
    const visits = await visitsOf(token);
    expect(visits.map((visit) => visit.place.name)).toEqual(['Home', 'Home', null, 'Home']);
    const officePlace = visits[2]!.place_id;
    const merged = await post(`/places/${officePlace}`, token, { merge_into: named.id });
    expect(merged.statusCode).toBe(200);
    await send(token, stay(home, DAY + 23.99 * H, DAY + 24 * H, seeded(10), 10_000));
    expect((await visitsOf(token)).map((visit) => visit.place.name)).toEqual(['Home', 'Home', 'Home', 'Home']);
  });
});

describe('statistics count movement within trips only', () => {
  it('a walk ten days after the last point elsewhere counts the walk, not the jump', async () => {
    const { token } = await person();
    const random = seeded(6);
    const before = stay({ lat: 48.1, lon: 11.5 }, DAY - 10 * 24 * H, DAY - 10 * 24 * H + H, random);
    const start = offset(home, 0, 0);
    const end = offset(home, 2500, 0);
    const later = [
      ...stay(start, DAY + 9 * H, DAY + 9.25 * H, random, 60_000),
      ...walk(start, end, DAY + 9.25 * H, DAY + 9.75 * H),
      ...stay(end, DAY + 9.75 * H, DAY + 10 * H, random, 60_000),
    ];
    await send(token, [...before, ...later]);
    const response = await get(`/locations/stats?group_by=day&${range}`, token);
    expect(response.statusCode).toBe(200);
    const [group] = response.json<{ groups: { period: string; distance_m: number }[] }>().groups;
    expect(group!.period).toBe('2024-05-06');
    expect(Math.abs(group!.distance_m - 2500) / 2500).toBeLessThan(0.05);
  });
});

describe('the year in review', () => {
  it('adds up the year: distance by mode, days in Germany and Berlin, where the time went', async () => {
    const { token } = await person();
    await send(token, day(7));
    const response = await get('/locations/summary?year=2024', token);
    expect(response.statusCode).toBe(200);
    const summary = response.json<Summary>();
    expect(summary.countries).toEqual([{ code: 'DE', name: 'Germany', days: 1 }]);
    expect(summary.cities).toEqual([{ name: 'Berlin', country: 'DE', days: 1 }]);
    expect(Math.abs(summary.distance_by_mode.walking! - 2 * WALK_M) / (2 * WALK_M)).toBeLessThan(0.05);
    expect(summary.places.length).toBe(2);
    expect(summary.new_places.length).toBe(2);
    expect(summary.longest_trip?.mode).toBe('walking');
    const empty = await get('/locations/summary?year=2023', token);
    expect(empty.json()).toMatchObject({ distance_m: 0, countries: [], places: [], longest_trip: null });
  });
});

describe('photos placed by the history', () => {
  it('a photo without GPS taken during the walk gets the place on the way, marked history', async () => {
    const { token } = await person(['get_private_scope', 'write_locations', 'upload_media']);
    await send(token, day(8));
    const photo = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#884422' } })
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: '2024:05:06 08:15:00' } })
      .toBuffer();
    const uploaded = await uploadMedium(t, token, photo, 'walk.jpg', 'image/jpeg', { scope: 'public' });
    expect(uploaded.statusCode).toBe(201);
    const medium = uploaded.json<Medium>();
    expect(medium.location_source).toBe('history');
    const halfway = { lat: (home.lat + office.lat) / 2, lon: (home.lon + office.lon) / 2 };
    expect(distanceM(medium.location!, halfway)).toBeLessThan(60);
    // A stranger gets the public precision (the default grid), never the interpolated point.
    const stranger = await get(`/media/id/${medium.id}`);
    expect(stranger.statusCode).toBe(200);
    const seen = stranger.json<Medium>();
    expect(seen.location_source).toBe('history');
    expect(seen.location).not.toEqual(medium.location);
  });
});

describe('photos placed by the history, after the fact', () => {
  it('a photo uploaded before its history arrived is placed once the points come, and not by the upload time', async () => {
    const { token } = await person(['get_private_scope', 'write_locations', 'upload_media']);
    const taken = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#224488' } })
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: '2024:05:06 08:15:00' } })
      .toBuffer();
    const undated = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#448822' } })
      .jpeg()
      .toBuffer();
    const early = (await uploadMedium(t, token, taken, 'walk.jpg', 'image/jpeg')).json<Medium>();
    const plain = (await uploadMedium(t, token, undated, 'plain.jpg', 'image/jpeg')).json<Medium>();
    expect(early).toMatchObject({ location: null, location_source: null });
    await send(token, day(12));
    expect((await visitsOf(token)).length).toBe(3);
    const placed = (await get(`/media/id/${early.id}`, token)).json<Medium>();
    expect(placed.location_source).toBe('history');
    const halfway = { lat: (home.lat + office.lat) / 2, lon: (home.lon + office.lon) / 2 };
    expect(distanceM(placed.location!, halfway)).toBeLessThan(60);
    // Without a time of its own, a photo says nothing of where it was taken.
    expect((await get(`/media/id/${plain.id}`, token)).json<Medium>()).toMatchObject({
      location: null,
      location_source: null,
    });
  });
});

describe('access', () => {
  it('is 401 without a token or without get_private_scope, and 404 for another person’s ids', async () => {
    const owner = await person();
    const stranger = await person();
    const writer = await person(['write_locations']);
    await send(owner.token, day(11));
    const [visit] = await visitsOf(owner.token);
    for (const url of ['/locations/visits', '/locations/trips', '/places', '/locations/summary?year=2024']) {
      expect((await get(url)).statusCode).toBe(401);
      const limited = await get(url, writer.token);
      expect(limited.statusCode).toBe(401);
      expect(limited.headers['www-authenticate']).toContain('scope="get_private_scope"');
    }
    const foreignVisit = await post(`/locations/visits/${visit!.id}`, stranger.token, { not_a_stay: true });
    expect(foreignVisit.statusCode).toBe(404);
    expect(foreignVisit.headers['content-type']).toContain('application/problem+json');
    expect((await get(`/places/${visit!.place_id}`, stranger.token)).statusCode).toBe(404);
    expect((await post(`/places/${visit!.place_id}`, stranger.token, { name: 'Mine' })).statusCode).toBe(404);
    expect((await visitsOf(owner.token)).length).toBe(3);
  });
});
