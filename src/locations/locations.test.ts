// Location batches in, and locations out as JSON, GeoJSON and GPX, each read back with a real
// parser of its format; public points rounded to the owner's precision.
import { check } from '@placemarkio/check-geojson';
import { gpx as gpxToGeoJson } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { byClass, expectAnswer, invalid, refused, unknownField, type InputClass } from '../../test/fuzz.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { roundPoint } from '../privacy/precision.ts';

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let writer: string;
let reader: string;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database, { username: 'walker' });
  writer = await tokenFor(t, user, ['write_locations']);
  reader = await tokenFor(t, user, ['get_private_scope']);
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.database.db.deleteFrom('locations').execute();
});

const post = (payload: unknown, token = writer) =>
  t.app.inject({
    method: 'POST',
    url: '/locations',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

/** The parts of a GeoJSON FeatureCollection these tests read. */
interface FeatureCollection {
  type: string;
  features: { geometry: unknown; properties: Record<string, unknown> }[];
}

const anyString: unknown = expect.any(String);
const anyNumber: unknown = expect.any(Number);

const berlin = {
  time: 1_700_000_000.123,
  lat: 52.520008,
  lon: 13.404954,
  alt: 34,
  accuracy: 5,
  speed: 1.2,
  heading: 90,
};

describe('POST /locations', () => {
  it('stores a JSON array of points, private by default, and counts duplicates', async () => {
    const first = await post([berlin, { ...berlin, time: berlin.time + 1 }]);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ stored: 2, duplicates: 0 });
    const again = await post([berlin, { ...berlin, time: berlin.time + 2 }, { ...berlin, time: berlin.time + 2 }]);
    expect(again.json()).toEqual({ stored: 1, duplicates: 2 });
    const points = (await get('/locations/private?order=asc', reader)).json<Record<string, unknown>[]>();
    expect(points).toHaveLength(3);
    expect(points[0]).toEqual({
      id: anyString,
      username: 'walker',
      scope: 'private',
      time: 1_700_000_000.123,
      lat: 52.520008,
      lon: 13.404954,
      alt: 34,
      accuracy: 5,
      speed: 1.2,
      heading: 90,
      source: null,
      created_at: anyNumber,
    });
    expect((await get('/locations/public/walker')).json()).toEqual([]);
  });

  it('takes a GeoJSON FeatureCollection, with RFC 3339 or epoch times', async () => {
    const response = await post({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [13.4, 52.5, 40] },
          properties: { timestamp: '2024-05-01T10:00:00Z', accuracy: 8, battery_level: 0.9 },
        },
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [13.5, 52.6] },
          properties: { time: 1714557700, scope: 'public' },
        },
      ],
    });
    expect(response.json()).toEqual({ stored: 2, duplicates: 0 });
    const points = (await get('/locations/private', reader)).json<{ time: number; alt: number }[]>();
    expect(points.map((p) => [p.time, p.alt])).toEqual([[1714557600, 40]]);
    expect((await get('/locations/public/walker')).json<unknown[]>()).toHaveLength(1);
  });

  it('rejects the whole batch for one bad point, naming its index; nothing is stored', async () => {
    const cases: [unknown, string][] = [
      [[berlin, { ...berlin, lat: 91 }], 'body/1/lat'],
      [[berlin, berlin, { ...berlin, lon: 'east' }], 'body/2/lon'],
      [[{ lat: 1, lon: 2 }], 'body/0/time'],
      [[berlin, { ...berlin, colour: 'red' }], 'body/1/colour'],
      [[berlin, 'here'], 'body/1'],
      [[{ ...berlin, scope: 'friends' }], 'body/0/scope'],
      [[{ ...berlin, time: '2024-05-01' }], 'body/0/time'],
      [
        { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'LineString' } }] },
        'body/features/0/geometry',
      ],
      [
        {
          type: 'FeatureCollection',
          features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [200, 1] }, properties: { time: 1 } }],
        },
        'body/features/0/geometry/coordinates/0',
      ],
    ];
    for (const [body, path] of cases) {
      const response = await post(body);
      expect(response.statusCode, path).toBe(400);
      expect(response.json<{ errors: { path: string }[] }>().errors[0]?.path).toBe(path);
    }
    expect(await countRows(t.database, 'locations')).toBe(0);
  });

  it('takes at most 1000 points', async () => {
    const points = Array.from({ length: 1001 }, (_, i) => ({ ...berlin, time: i }));
    const response = await post(points);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ detail: 'A batch holds at most 1000 points; this one has 1001.' });
    expect((await post(points.slice(0, 1000))).json()).toEqual({ stored: 1000, duplicates: 0 });
  });

  it('needs write_locations, a JSON body, and no envelope but an array or FeatureCollection', async () => {
    const lacking = await post([berlin], reader);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toContain('scope="write_locations"');
    expect((await t.app.inject({ method: 'POST', url: '/locations', payload: [berlin] })).statusCode).toBe(401);
    expect((await post({ points: [berlin] })).statusCode).toBe(400);
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/locations',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      payload: '[{"time": 1,',
    });
    expect(notJson.statusCode).toBe(400);
  });

  it('every class of body gets its exact answer, and none a 5xx', async () => {
    // A person of its own, so the points stored here show in no other test's collections.
    const fuzzer = await tokenFor(t, await createTestUser(t.database), ['write_locations']);
    const KNOWN = ['time', 'lat', 'lon', 'alt', 'accuracy', 'speed', 'heading', 'scope', 'source', 'id'];
    const lat = fc.double({ min: -90, max: 90, noNaN: true });
    const lon = fc.double({ min: -180, max: 180, noNaN: true });
    const place = fc.record({ lat, lon });
    // Times no other test uses, one per point, so every valid point is new.
    let nextTime = 3_000_000_000;
    const pointError = (path: string, message: string) =>
      refused(`Point 0 is invalid: ${path} ${message}. Nothing was stored.`, [{ path, message }]);
    const classes: InputClass<unknown>[] = [
      {
        name: 'neither an array nor an object',
        inputs: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.boolean(), fc.constant(null)),
        answer: () =>
          invalid(['body', 'must be array'], ['body', 'must be object'], ['body', 'must match a schema in anyOf']),
      },
      {
        name: 'a point without a time',
        inputs: place.map((p) => [p]),
        answer: () => pointError('body/0/time', 'is required'),
      },
      {
        name: 'a latitude out of range',
        inputs: fc
          .tuple(
            fc.oneof(
              fc.double({ min: 90.000001, max: 1e6, noNaN: true }),
              fc.double({ min: -1e6, max: -90.000001, noNaN: true }),
            ),
            lon,
          )
          .map(([badLat, goodLon]) => [{ time: 1, lat: badLat, lon: goodLon }]),
        answer: () => pointError('body/0/lat', 'must be from -90 to 90'),
      },
      {
        name: 'an unknown field in a point',
        inputs: fc.tuple(unknownField(KNOWN), place).map(([field, p]) => [{ time: 1, ...p, [field]: 1 }]),
        answer: (input) => pointError(`body/0/${Object.keys((input as object[])[0]!)[3]!}`, 'is not a known field'),
      },
      {
        name: 'a time that is neither seconds nor a date',
        inputs: fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), place).map(([time, p]) => [{ time, ...p }]),
        answer: () => pointError('body/0/time', 'must be epoch seconds or an RFC 3339 date-time'),
      },
      {
        name: 'valid points',
        inputs: fc.array(place, { maxLength: 5 }),
        answer: (input) => ({ status: 200, body: { stored: (input as unknown[]).length, duplicates: 0 } }),
      },
    ];
    await fc.assert(
      fc.asyncProperty(byClass(classes), async ({ name, input, answer }) => {
        const body =
          name === 'valid points' ? (input as object[]).map((p) => ({ ...p, time: (nextTime += 1) })) : input;
        const response = await t.app.inject({
          method: 'POST',
          url: '/locations',
          headers: { authorization: `Bearer ${fuzzer}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        expectAnswer(name, body, response, answer);
      }),
      { numRuns: 200 },
    );
  });
});

describe('public locations', () => {
  it("are rounded to the owner's precision, the same on every read, and nothing finer leaks through bbox", async () => {
    await updateSettings(t.database.db, user.id, { publicLocationPrecisionM: 1000 });
    await post([{ ...berlin, scope: 'public' }]);
    const reads = await Promise.all([1, 2, 3].map(() => get('/locations/public/walker')));
    const bodies = reads.map((r) => r.json<{ lat: number; lon: number; accuracy: number }[]>()[0]!);
    const expected = roundPoint(berlin.lat, berlin.lon, 1000);
    for (const body of bodies) expect(body).toMatchObject({ ...expected, accuracy: 1000 });
    expect(Math.abs(expected.lat - berlin.lat)).toBeGreaterThan(0);
    // A tiny box around the exact point, not containing the rounded one, finds nothing.
    const tiny = `${berlin.lon - 1e-5},${berlin.lat - 1e-5},${berlin.lon + 1e-5},${berlin.lat + 1e-5}`;
    const containsRounded =
      expected.lat >= berlin.lat - 1e-5 &&
      expected.lat <= berlin.lat + 1e-5 &&
      Math.abs(expected.lon - berlin.lon) <= 1e-5;
    expect(containsRounded).toBe(false);
    expect((await get(`/locations/public/walker?bbox=${tiny}`)).json()).toEqual([]);
    // A box around the rounded point finds it.
    const around = `${expected.lon - 1e-4},${expected.lat - 1e-4},${expected.lon + 1e-4},${expected.lat + 1e-4}`;
    expect((await get(`/locations/public/walker?bbox=${around}`)).json<unknown[]>()).toHaveLength(1);
    // The owner's own private reading of a private point is exact; by id the public point is rounded too.
    const id = bodies[0] && (await get('/locations/public/walker')).json<{ id: string }[]>()[0]!.id;
    expect((await get(`/locations/id/${id}`)).json()).toMatchObject(expected);
  });

  it('rounding is deterministic and within the precision', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -80, max: 80, noNaN: true }),
        fc.double({ min: -179.9, max: 179.9, noNaN: true }),
        fc.integer({ min: 10, max: 10_000 }),
        (lat, lon, precision) => {
          const a = roundPoint(lat, lon, precision);
          expect(Math.abs(a.lon)).toBeLessThanOrEqual(180);
          expect(roundPoint(lat, lon, precision)).toEqual(a);
          const dy = (a.lat - lat) * 111_320;
          // Across the antimeridian, 179.99 and -179.99 are neighbours.
          const dLon = ((a.lon - lon + 540) % 360) - 180;
          const dx = dLon * 111_320 * Math.cos((lat * Math.PI) / 180);
          expect(Math.hypot(dx, dy)).toBeLessThan(precision * 1.5);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('bbox filters private collections exactly and is checked', async () => {
    await post([berlin, { ...berlin, time: 5, lat: -33.86, lon: 151.2 }]);
    const sydney = await get('/locations/private?bbox=150,-34,152,-33', reader);
    expect(sydney.json<{ lat: number }[]>().map((p) => p.lat)).toEqual([-33.86]);
    // Crossing the antimeridian: from 150 east to -170 (west).
    expect((await get('/locations/private?bbox=150,-90,-170,90', reader)).json<unknown[]>()).toHaveLength(1);
    for (const bad of ['1,2,3', '0,10,1,5', '0,0,200,1', 'a,b,c,d']) {
      const response = await get(`/locations/private?bbox=${bad}`, reader);
      expect(response.statusCode, bad).toBe(400);
    }
  });
});

describe('representations', () => {
  beforeEach(async () => {
    await post([berlin, { ...berlin, time: berlin.time + 60, lat: 52.53, alt: undefined }]);
  });

  it('GeoJSON by format or Accept: a valid FeatureCollection (RFC 7946)', async () => {
    for (const [url, headers] of [
      ['/locations/private?format=geojson', {}],
      ['/locations/private', { accept: 'application/geo+json' }],
    ] as const) {
      const response = await get(url, reader, headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/geo+json');
      expect(response.headers.vary).toContain('Accept');
      // check() parses and validates RFC 7946, throwing on anything invalid.
      const parsed = check(response.body) as unknown as FeatureCollection;
      expect(parsed.type).toBe('FeatureCollection');
      expect(parsed.features.map((f) => f.geometry)).toEqual([
        { type: 'Point', coordinates: [13.404954, 52.53] },
        { type: 'Point', coordinates: [13.404954, 52.520008, 34] },
      ]);
      expect(parsed.features[1]?.properties).toMatchObject({ time: berlin.time, accuracy: 5, scope: 'private' });
    }
  });

  it('GPX 1.1 by format, read back by a GPX parser, oldest point first', async () => {
    const response = await get('/locations/private?format=gpx', reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/gpx+xml; charset=utf-8');
    const doc = new DOMParser().parseFromString(response.body, 'text/xml');
    const geojson = gpxToGeoJson(doc) as unknown as FeatureCollection;
    expect(geojson.features).toHaveLength(1);
    const track = geojson.features[0]!;
    expect(track.geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [13.404954, 52.520008, 34],
        [13.404954, 52.53],
      ],
    });
    expect((track.properties as { coordinateProperties: { times: string[] } }).coordinateProperties.times).toEqual([
      '2023-11-14T22:13:20.123Z',
      '2023-11-14T22:14:20.123Z',
    ]);
  });
});
