// Privacy zones as an attacker tests them (docs/privacy.md "Privacy zones"): a public point
// written inside a zone must change no public answer (status, every header, ETag, Link, body,
// counts, downloads, tiles, views); a zone set later hides the points already stored at once;
// no public place is ever served inside a zone's circle, rounding included; the owner still
// reads everything.
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../test/imports.ts';
import { tokenFor } from '../../test/tokens.ts';
import { roundPoint } from './precision.ts';
import { distanceM, hideRule, type Zone } from './zones.ts';

const HOME = { lat: 52.52, lon: 13.405 };
const ZONE: Zone = { name: 'Home', lat: HOME.lat, lon: HOME.lon, radius_m: 200 };
/** About 20 km east of home: far outside every zone of these tests. */
const AWAY = { lat: 52.52, lon: 13.7 };

/** The place `metres` from `from` towards `bearing` degrees (east = 90), on a sphere. */
function offset(from: { lat: number; lon: number }, metres: number, bearing: number) {
  const r = 6_371_008.8;
  const d = metres / r;
  const b = (bearing * Math.PI) / 180;
  const lat1 = (from.lat * Math.PI) / 180;
  const lon1 = (from.lon * Math.PI) / 180;
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b));
  const lon2 =
    lon1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  return { lat: (lat2 * 180) / Math.PI, lon: (lon2 * 180) / Math.PI };
}

describe('the rule (src/privacy/zones.ts)', () => {
  const zoneArb = fc.record({
    name: fc.constant('z'),
    lat: fc.double({ min: -80, max: 80, noNaN: true }),
    lon: fc.double({ min: -180, max: 180, noNaN: true }),
    radius_m: fc.integer({ min: 50, max: 5000 }),
  });
  const precisionArb = fc.constantFrom(0, 1, 50, 100, 333, 1000, 2500, 10_000);

  it('hides every point inside the circle', () => {
    fc.assert(
      fc.property(
        zoneArb,
        precisionArb,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        (zone, p, f, bearing) => {
          const point = offset(zone, f * zone.radius_m * 0.999, bearing);
          expect(hideRule([zone], p)(point.lat, point.lon)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never serves a point it shows inside the circle, rounding included', () => {
    fc.assert(
      fc.property(
        zoneArb,
        precisionArb,
        fc.double({ min: 0, max: 6, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        (zone, p, f, bearing) => {
          const point = offset(zone, f * Math.max(zone.radius_m, p), bearing);
          if (hideRule([zone], p)(point.lat, point.lon)) return;
          expect(distanceM(roundPoint(point.lat, point.lon, p), zone)).toBeGreaterThan(zone.radius_m);
        },
      ),
      { numRuns: 4000 },
    );
  });

  it('decides per cell of a grid a radius (or the precision) wide, so the hole has no round edge', () => {
    fc.assert(
      fc.property(
        zoneArb,
        precisionArb,
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 360, noNaN: true }),
        fc.double({ min: -0.49, max: 0.49, noNaN: true }),
        fc.double({ min: -0.49, max: 0.49, noNaN: true }),
        (zone, p, f, bearing, dx, dy) => {
          const step = Math.max(p, zone.radius_m);
          const point = offset(zone, f * step, bearing);
          const cell = roundPoint(point.lat, point.lon, step);
          const latStep = step / 111_320;
          const lonStep = latStep / Math.cos((cell.lat * Math.PI) / 180);
          const other = { lat: cell.lat + dy * latStep, lon: cell.lon + dx * lonStep };
          if (
            roundPoint(other.lat, other.lon, step).lat !== cell.lat ||
            roundPoint(other.lat, other.lon, step).lon !== cell.lon
          )
            return;
          const hides = hideRule([zone], p);
          expect(hides(other.lat, other.lon)).toBe(hides(point.lat, point.lon));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('hides nothing far away, and nothing without zones', () => {
    expect(hideRule([ZONE], 1000)(AWAY.lat, AWAY.lon)).toBe(false);
    expect(hideRule([], 1000)(HOME.lat, HOME.lon)).toBe(false);
  });
});

let t: TestApp;
let owner: Awaited<ReturnType<typeof createTestUser>>;
let stranger: Awaited<ReturnType<typeof createTestUser>>;
let writer: string;
let everything: string;
let appToken: string;
let strangerToken: string;
let publicViewId: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function post(url: string, token: string, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
}

async function addPoints(points: { lat: number; lon: number; time: number; scope?: string }[]) {
  const response = await post('/locations', writer, points);
  expect(response.statusCode).toBe(200);
}

/** The ids of the owner's points at exactly these times (read as the owner, private scope included). */
async function idAt(time: number): Promise<string> {
  const row = await t.database.db
    .selectFrom('locations')
    .select('id')
    .where('user_id', '=', owner.id)
    .where('time', '=', time * 1000)
    .executeTakeFirstOrThrow();
  return row.id;
}

function tileOf(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const rad = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  return [x, y];
}

/** What an answer tells: status, every header but the per-request id and date, the bytes. */
function seen(response: LightMyRequestResponse) {
  const { date: _date, 'x-request-id': _id, ...headers } = response.headers;
  return { status: response.statusCode, headers, body: response.rawPayload.toString('base64') };
}

const around = (place: { lat: number; lon: number }, d: number) =>
  [place.lon - d, place.lat - d, place.lon + d, place.lat + d].map((v) => v.toFixed(6)).join(',');

/** Every public answer an attacker can ask for about the owner, anonymous or with tokens that see no private item. */
function publicUrls(): { url: string; token?: string; headers?: Record<string, string> }[] {
  const base = `/locations/public/${owner.username}`;
  const urls: { url: string; token?: string; headers?: Record<string, string> }[] = [];
  for (const query of [
    '',
    '?count=1',
    '?count=2&order=asc',
    '?format=geojson',
    '?format=gpx',
    '?format=csv',
    '?format=geojsonseq',
    `?bbox=${around(HOME, 0.05)}`,
    `?bbox=${around(HOME, 0.05)}&count=1`,
    `?bbox=${around(HOME, 0.002)}`,
    '?bbox=-180,-90,180,90&count=1',
    '?all=true',
    '?all=true&format=geojson',
    '?all=true&format=gpx',
    '?all=true&format=csv',
    '?all=true&format=geojsonseq',
  ]) {
    urls.push({ url: `${base}${query}` });
  }
  urls.push({ url: base, headers: { accept: 'application/geo+json' } });
  urls.push({ url: '/locations/public?count=5', token: appToken });
  urls.push({ url: '/locations/public?all=true', token: appToken });
  urls.push({ url: `/users/${owner.username}` });
  urls.push({ url: `/posts/public/${owner.username}` });
  urls.push({ url: `/posts/public/${owner.username}?format=atom` });
  for (const z of [0, 8, 12, 14, 16]) {
    const [x, y] = tileOf(HOME.lat, HOME.lon, z);
    urls.push({ url: `${base}/tiles/${z}/${x}/${y}.mvt` });
    // The owner's tile without get_private_scope is the public one.
    urls.push({ url: `/locations/tiles/${z}/${x}/${y}.mvt`, token: appToken });
  }
  urls.push({ url: `/views/${publicViewId}` });
  urls.push({ url: `/views/${publicViewId}?count=1` });
  return urls;
}

async function publicAnswers(): Promise<Record<string, ReturnType<typeof seen>>> {
  const answers: Record<string, ReturnType<typeof seen>> = {};
  for (const { url, token, headers } of publicUrls()) {
    const response = await t.app.inject({
      method: 'GET',
      url,
      headers: { ...headers, ...(token ? bearer(token) : {}) },
    });
    answers[`${token ? 'token ' : ''}${headers?.accept ?? ''} ${url}`] = seen(response);
  }
  return answers;
}

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createTestUser(t.database, { username: 'zoner' });
  stranger = await createTestUser(t.database, { username: 'snoop' });
  writer = await tokenFor(t, owner, ['write_locations', 'update_settings', 'create_post']);
  everything = await tokenFor(t, owner, ['get_private_scope', 'get_settings', 'manage_views', 'get_views']);
  appToken = await tokenFor(t, owner, []);
  strangerToken = await tokenFor(t, stranger, ['get_private_scope']);
  const zones = await post('/settings', writer, { privacy_zones: [ZONE] });
  expect(zones.statusCode).toBe(200);
  // Public points: far away, and a ring of them well outside the area the zone hides.
  await addPoints([
    { ...AWAY, time: 1000, scope: 'public' },
    ...[0, 90, 180, 270].map((bearing, i) => ({ ...offset(HOME, 4000, bearing), time: 1100 + i, scope: 'public' })),
  ]);
  const view = await post('/views', everything, {
    name: 'near home',
    kinds: ['locations', 'posts'],
    scope: 'public',
    filters: { bbox: [HOME.lon - 0.1, HOME.lat - 0.1, HOME.lon + 0.1, HOME.lat + 0.1] },
  });
  expect(view.statusCode).toBe(201);
  publicViewId = view.json<{ id: string }>().id;
});
afterAll(() => t.close());

describe('settings', () => {
  it('takes zones and shows them back to the owner', async () => {
    const settings = await t.app.inject({ method: 'GET', url: '/settings', headers: bearer(everything) });
    expect(settings.json<{ privacy_zones: Zone[] }>().privacy_zones).toEqual([ZONE]);
  });

  it.each([
    [{ privacy_zones: [{ ...ZONE, radius_m: 49 }] }, 'body/privacy_zones/0/radius_m'],
    [{ privacy_zones: [{ ...ZONE, radius_m: 5001 }] }, 'body/privacy_zones/0/radius_m'],
    [{ privacy_zones: [{ ...ZONE, lat: 86 }] }, 'body/privacy_zones/0/lat'],
    [{ privacy_zones: [{ ...ZONE, lon: -181 }] }, 'body/privacy_zones/0/lon'],
    [{ privacy_zones: [{ ...ZONE, name: '' }] }, 'body/privacy_zones/0/name'],
    [{ privacy_zones: [{ ...ZONE, name: '   ' }] }, 'body/privacy_zones/0/name'],
    [{ privacy_zones: [ZONE, { ...ZONE, extra: 1 }] }, 'body/privacy_zones/1/extra'],
    [{ privacy_zones: Array.from({ length: 21 }, () => ZONE) }, 'body/privacy_zones'],
  ])('refuses %j with a field error, and keeps the zones it had', async (body, path) => {
    const response = await post('/settings', writer, body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('application/problem+json');
    const errors = response.json<{ errors: { path: string }[] }>().errors;
    expect(errors.map((error) => error.path)).toContain(path);
    const settings = await t.app.inject({ method: 'GET', url: '/settings', headers: bearer(everything) });
    expect(settings.json<{ privacy_zones: Zone[] }>().privacy_zones).toEqual([ZONE]);
  });
});

describe('a public point written inside a zone', () => {
  it('changes no public answer, byte for byte, ETag and Link included; nor does deleting it', async () => {
    const before = await publicAnswers();
    await addPoints([{ ...offset(HOME, 30, 45), time: 2000, scope: 'public' }]);
    const hiddenId = await idAt(2000);
    expect(await publicAnswers()).toEqual(before);

    // By id it answers as a private point does: 401 without a token, 404 for anyone else.
    await addPoints([{ ...AWAY, time: 2001, scope: 'private' }]);
    const privateId = await idAt(2001);
    for (const headers of [{}, bearer(strangerToken), bearer(appToken)]) {
      const hidden = seen(await t.app.inject({ method: 'GET', url: `/locations/id/${hiddenId}`, headers }));
      const secret = seen(await t.app.inject({ method: 'GET', url: `/locations/id/${privateId}`, headers }));
      expect(hidden).toEqual(secret);
    }
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/locations/id/${privateId}`,
      headers: bearer(await tokenFor(t, owner, ['write_locations', 'get_private_scope'])),
    });
    expect(deleted.statusCode).toBe(204);
    expect(await publicAnswers()).toEqual(before);

    const gone = await t.app.inject({
      method: 'DELETE',
      url: `/locations/id/${hiddenId}`,
      headers: bearer(await tokenFor(t, owner, ['write_locations', 'get_private_scope'])),
    });
    expect(gone.statusCode).toBe(204);
    expect(await publicAnswers()).toEqual(before);
  });

  it('still shows to its owner, exactly, by id and in the owner tiles and statistics', async () => {
    const place = offset(HOME, 20, 200);
    await addPoints([{ ...place, time: 3000, scope: 'public' }]);
    const id = await idAt(3000);
    const mine = await t.app.inject({ method: 'GET', url: `/locations/id/${id}`, headers: bearer(everything) });
    expect(mine.statusCode).toBe(200);
    // The owner reading with get_private_scope sees their public point exactly, zone or not.
    expect(mine.json()).toMatchObject({ id, scope: 'public', lat: place.lat, lon: place.lon });
    const stats = await t.app.inject({
      method: 'GET',
      url: '/locations/stats?group_by=year',
      headers: bearer(everything),
    });
    const points = stats.json<{ groups: { points: number }[] }>().groups.reduce((sum, group) => sum + group.points, 0);
    const stored = await t.database.db.selectFrom('locations').select('id').where('user_id', '=', owner.id).execute();
    expect(points).toBe(stored.length);
    const [x, y] = tileOf(place.lat, place.lon, 0);
    const own = await t.app.inject({
      method: 'GET',
      url: `/locations/tiles/0/${x}/${y}.mvt`,
      headers: bearer(everything),
    });
    const pub = await t.app.inject({ method: 'GET', url: `/locations/public/${owner.username}/tiles/0/${x}/${y}.mvt` });
    expect(own.rawPayload.equals(pub.rawPayload)).toBe(false);
    await t.app.inject({
      method: 'DELETE',
      url: `/locations/id/${id}`,
      headers: bearer(await tokenFor(t, owner, ['write_locations', 'get_private_scope'])),
    });
  });
});

describe('posts inside a zone', () => {
  it('are shown without their location, and no box finds them', async () => {
    const inside = await post('/posts', writer, {
      text: 'at home',
      groups: [],
      scope: 'public',
      location: offset(HOME, 10, 0),
    });
    const outside = await post('/posts', writer, { text: 'out', groups: [], scope: 'public', location: AWAY });
    expect(inside.statusCode).toBe(202);
    expect(outside.statusCode).toBe(202);
    const byId = (id: string) => t.app.inject({ method: 'GET', url: `/posts/id/${id}` });
    expect((await byId(inside.json<{ id: string }>().id)).json()).toMatchObject({ text: 'at home', location: null });
    expect((await byId(outside.json<{ id: string }>().id)).json()).toMatchObject({
      text: 'out',
      location: roundPoint(AWAY.lat, AWAY.lon, 1000),
    });
    const view = await t.app.inject({ method: 'GET', url: `/views/${publicViewId}` });
    const texts = view
      .json<{ items: { kind: string; item: { text?: string } }[] }>()
      .items.map((entry) => entry.item.text);
    expect(texts).not.toContain('at home');
  });
});

describe('a zone set later', () => {
  it('hides the points already stored at once, and shows them again when removed', async () => {
    const spot = offset(AWAY, 0, 0);
    const profile = async () =>
      (await t.app.inject({ method: 'GET', url: `/users/${owner.username}` })).json<Record<string, unknown>>();
    const listed = async () =>
      (await t.app.inject({ method: 'GET', url: `/locations/public/${owner.username}?count=1000` }))
        .json<{ time: number }[]>()
        .map((point) => point.time);
    const countBefore = await profile();
    expect(await listed()).toContain(1000);

    const set = await post('/settings', writer, { privacy_zones: [ZONE, { name: 'Away', ...spot, radius_m: 100 }] });
    expect(set.statusCode).toBe(200);
    expect(await listed()).not.toContain(1000);
    const after = await profile();
    expect(after.public_counts).toEqual({
      ...(countBefore.public_counts as object),
      locations: (countBefore.public_counts as { locations: number }).locations - 1,
    });
    const [x, y] = tileOf(spot.lat, spot.lon, 14);
    const tile = await t.app.inject({
      method: 'GET',
      url: `/locations/public/${owner.username}/tiles/14/${x}/${y}.mvt`,
    });
    expect(tile.rawPayload.length).toBe(0);
    const id = await idAt(1000);
    expect((await t.app.inject({ method: 'GET', url: `/locations/id/${id}` })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: `/locations/id/${id}`, headers: bearer(everything) })).statusCode,
    ).toBe(200);

    await post('/settings', writer, { privacy_zones: [ZONE] });
    expect(await listed()).toContain(1000);
    expect(await profile()).toEqual(countBefore);
  });
});

describe('at the edge of a zone, with rounding', () => {
  it.each([0, 50, 1000, 3000])(
    'at a precision of %i m, no point is served inside the circle and every point in it is hidden',
    async (precision) => {
      const user = await createTestUser(t.database, { username: `edge${precision}` });
      const token = await tokenFor(t, user, ['write_locations', 'update_settings']);
      const zone = { name: 'edge', lat: 48.1372, lon: 11.5756, radius_m: 150 };
      const set = await t.app.inject({
        method: 'POST',
        url: '/settings',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: JSON.stringify({ privacy_zones: [zone], public_location_precision_m: precision }),
      });
      expect(set.statusCode).toBe(200);
      // Rings from the centre to well past the area hidden, just inside and just outside the radius.
      const points = [];
      let time = 10_000;
      for (const metres of [0, 75, 149, 151, 160, 200, 300, 450, 700, 1000, 2000, 4000, 8000, 12_000]) {
        for (let bearing = 0; bearing < 360; bearing += 30)
          points.push({ ...offset(zone, metres, bearing), time: time++, scope: 'public' });
      }
      const stored = await t.app.inject({
        method: 'POST',
        url: '/locations',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: JSON.stringify(points),
      });
      expect(stored.json()).toEqual({ stored: points.length, duplicates: 0 });
      const served = (await t.app.inject({ method: 'GET', url: `/locations/public/${user.username}?count=1000` })).json<
        { lat: number; lon: number; time: number }[]
      >();
      for (const point of served) expect(distanceM(point, zone)).toBeGreaterThan(zone.radius_m);
      const shownTimes = new Set(served.map((point) => point.time));
      for (const point of points) {
        if (distanceM(point, zone) <= zone.radius_m) expect(shownTimes.has(point.time)).toBe(false);
      }
      // The farthest rings are shown: a zone hides an area, not the person.
      expect(shownTimes.has(points.at(-1)!.time)).toBe(true);
    },
  );
});

describe('imported points', () => {
  it('are flagged by the zones in the import’s own transaction', async () => {
    const inside = offset(HOME, 40, 120);
    const outside = offset(HOME, 9000, 120);
    const e7 = (value: number) => Math.round(value * 1e7);
    const file = JSON.stringify({
      locations: [
        { latitudeE7: e7(inside.lat), longitudeE7: e7(inside.lon), timestamp: '2020-01-01T00:00:00Z' },
        { latitudeE7: e7(outside.lat), longitudeE7: e7(outside.lon), timestamp: '2020-01-01T00:01:00Z' },
      ],
    });
    const before = await publicAnswers();
    const response = await uploadImport(t, writer, file, 'Records.json', { scope: 'public' });
    expect(response.statusCode).toBe(202);
    await drain(importWorker(t));
    const rows = await t.database.db
      .selectFrom('locations')
      .select(['time', 'hidden', 'scope'])
      .where('user_id', '=', owner.id)
      .where('time', '>=', Date.parse('2020-01-01T00:00:00Z'))
      .where('time', '<=', Date.parse('2020-01-01T00:01:00Z'))
      .orderBy('time')
      .execute();
    expect(rows.map((row) => [row.scope, Number(row.hidden)])).toEqual([
      ['public', 1],
      ['public', 0],
    ]);
    const listed = (await t.app.inject({ method: 'GET', url: `/locations/public/${owner.username}?count=1000` })).json<
      { time: number }[]
    >();
    const times = listed.map((point) => point.time);
    expect(times).not.toContain(Date.parse('2020-01-01T00:00:00Z') / 1000);
    expect(times).toContain(Date.parse('2020-01-01T00:01:00Z') / 1000);
    // The point outside changed the public answers; the one inside is seen nowhere.
    expect(await publicAnswers()).not.toEqual(before);
  });
});
