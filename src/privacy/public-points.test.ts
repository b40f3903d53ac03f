// What strangers learn from a public point besides its rounded place (docs/privacy.md "What a
// public point says besides its place"), through HTTP as an attacker reads it:
// - the dead-reckoning attack (test/dead-reckoning.ts) on random tracks stored as public points,
//   over every public representation, never places the start closer than the cell centre does;
// - a point a tracker brought names no tracker to strangers;
// - the owner's token with `get_private_scope` reads the exact places of their own public items,
//   privacy zones included, while strangers still get them rounded, or none in a zone.
import { parse as parseCsv } from 'csv-parse/sync';
import { DOMParser } from '@xmldom/xmldom';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInThroughForm } from '../../test/browser.ts';
import { deadReckonStart, integrateTrack, type TrackPoint } from '../../test/dead-reckoning.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { roundPoint } from './precision.ts';
import { distanceM } from './zones.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_PUBLIC_CACHE_MB: '0' } });
});
afterAll(() => t.close());

const bearer = (token: string | undefined) => (token ? { authorization: `Bearer ${token}` } : {});
const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...headers, ...bearer(token) } });
const send = (method: 'POST', url: string, token: string, body: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

type Row = Record<string, unknown>;
const num = (value: unknown): number | null =>
  value === null || value === undefined || value === '' ? null : Number(value);
const asPoint = (row: Row, lat: unknown, lon: unknown): TrackPoint => ({
  time: Number(row.time),
  lat: Number(lat),
  lon: Number(lon),
  speed: num(row.speed),
  heading: num(row.heading),
});
const byTime = (points: TrackPoint[]) => [...points].sort((a, b) => a.time - b.time);

/** The points of a public answer, in whatever format it is, oldest first. */
function pointsOf(format: string, body: string): { points: TrackPoint[]; rows: Row[] } {
  if (format === 'json') {
    const rows = JSON.parse(body) as Row[];
    return { rows, points: byTime(rows.map((row) => asPoint(row, row.lat, row.lon))) };
  }
  if (format === 'view') {
    const rows = (JSON.parse(body) as { items: { item: Row }[] }).items.map((entry) => entry.item);
    return { rows, points: byTime(rows.map((row) => asPoint(row, row.lat, row.lon))) };
  }
  if (format === 'geojson' || format === 'geojsonseq') {
    const features = (
      format === 'geojson'
        ? (JSON.parse(body) as { features: unknown[] }).features
        : body
            .split('\x1e')
            .slice(1)
            .map((record) => JSON.parse(record) as unknown)
    ) as { geometry: { coordinates: number[] }; properties: Row }[];
    const rows = features.map((f) => f.properties);
    const points = features.map((f) => asPoint(f.properties, f.geometry.coordinates[1], f.geometry.coordinates[0]));
    return { rows, points: byTime(points) };
  }
  if (format === 'csv') {
    const rows = parseCsv<Row>(body, { columns: true });
    return { rows, points: byTime(rows.map((row) => asPoint(row, row.lat, row.lon))) };
  }
  const doc = new DOMParser().parseFromString(body, 'application/xml');
  const trkpts = Array.from(doc.getElementsByTagName('trkpt'));
  const rows = trkpts.map((el) => ({
    time: Date.parse(el.getElementsByTagName('time')[0]!.textContent!) / 1000,
    ele: el.getElementsByTagName('ele')[0]?.textContent ?? null,
    speed: null,
    heading: null,
  }));
  const points = trkpts.map((el, i) => asPoint(rows[i]!, el.getAttribute('lat'), el.getAttribute('lon')));
  return { rows, points: byTime(points) };
}

/** Every public answer that lists a person's points, as [format, url, token]. */
function publicReads(username: string, viewId: string, appToken: string): [string, string, string?][] {
  const base = `/locations/public/${username}`;
  return [
    ['json', `${base}?count=1000`],
    ['geojson', `${base}?count=1000&format=geojson`],
    ['gpx', `${base}?count=1000&format=gpx`],
    ['csv', `${base}?count=1000&format=csv`],
    ['geojsonseq', `${base}?count=1000&format=geojsonseq`],
    ['json', `${base}?all=true`],
    ['geojson', `${base}?all=true&format=geojson`],
    ['gpx', `${base}?all=true&format=gpx`],
    ['csv', `${base}?all=true&format=csv`],
    ['geojsonseq', `${base}?all=true&format=geojsonseq`],
    // The owner's own app, given no permission, reads the public collection as strangers do.
    ['json', '/locations/public?count=1000', appToken],
    ['csv', '/locations/public?all=true&format=csv', appToken],
    ['view', `/views/${viewId}?count=1000`],
  ];
}

describe('the dead-reckoning attack on public tracks', () => {
  const step = fc.record({
    dSpeed: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
    dHeading: fc.double({ min: -25, max: 25, noNaN: true }),
  });
  const track = fc.record({
    lat: fc.double({ min: -60, max: 60, noNaN: true }),
    lon: fc.double({ min: -170, max: 170, noNaN: true }),
    time: fc.integer({ min: 1_500_000_000, max: 1_800_000_000 }),
    precisionM: fc.constantFrom(100, 1000, 5000),
    speed: fc.double({ min: 0.5, max: 30, noNaN: true }),
    heading: fc.double({ min: 0, max: 359, noNaN: true }),
    steps: fc.array(step, { minLength: 30, maxLength: 361 }),
  });

  it('places the start no closer than its cell centre does, from any public answer', async () => {
    await fc.assert(
      fc.asyncProperty(track, async (input) => {
        let speed = input.speed;
        let heading = input.heading;
        const steps = input.steps.map((s) => {
          speed = Math.min(40, Math.max(0, speed + s.dSpeed));
          heading = (((heading + s.dHeading) % 360) + 360) % 360;
          return { dt: 5, speed, heading };
        });
        const truth = integrateTrack(input, steps);
        const owner = await createTestUser(t.database);
        await updateSettings(t.database.db, owner.id, { publicLocationPrecisionM: input.precisionM });
        const writer = await tokenFor(t, owner, ['write_locations', 'manage_views', 'get_views']);
        const appToken = await tokenFor(t, owner, []);
        const points = truth.map((p, i) => ({ ...p, alt: 30 + i * 0.7, accuracy: 4 + (i % 7), scope: 'public' }));
        expect((await send('POST', '/locations', writer, points)).json()).toEqual({
          stored: points.length,
          duplicates: 0,
        });
        const view = await send('POST', '/views', writer, { name: 'walk', kinds: ['locations'], scope: 'public' });
        expect(view.statusCode).toBe(201);
        const start = truth[0]!;
        const cellError = distanceM(roundPoint(start.lat, start.lon, input.precisionM), start);
        const answers: { url: string; format: string; rows: Row[] }[] = [];
        for (const [format, url, token] of publicReads(owner.username, view.json<{ id: string }>().id, appToken)) {
          const response = await get(url, token);
          expect(response.statusCode, url).toBe(200);
          const { points: served, rows } = pointsOf(format, response.body);
          expect(served.length, url).toBe(truth.length);
          const estimate = deadReckonStart(served, input.precisionM);
          // The bound: the estimate is no nearer the true start than the centre of the start's
          // cell (what the first served point says), give or take a metre for the six decimals.
          expect(distanceM(estimate, start), url).toBeGreaterThanOrEqual(cellError - 1);
          answers.push({ url, format, rows });
        }
        // Nothing else measured either: no altitude, and the accuracy is the precision.
        for (const { url, format, rows } of answers) {
          for (const row of rows) {
            expect(row.alt ?? row.ele ?? null, url).toBe(format === 'csv' ? '' : null);
            if ('accuracy' in row) expect(num(row.accuracy), url).toBe(input.precisionM);
          }
        }
      }),
      { numRuns: 8, endOnFailure: true },
    );
  });
});

describe('a point a tracker brought', () => {
  const PERMISSIONS = ['create_service', 'get_services', 'manage_views', 'get_views'] as const;

  for (const precisionM of [1000, 0]) {
    it(`names no tracker to strangers in any public answer (precision ${precisionM} m)`, async () => {
      const owner = await createTestUser(t.database);
      await updateSettings(t.database.db, owner.id, {
        publicLocationPrecisionM: precisionM,
        defaultScopes: { locations: 'public' },
      });
      const token = await tokenFor(t, owner, [...PERMISSIONS]);
      const reader = await tokenFor(t, owner, ['get_private_scope']);
      const appToken = await tokenFor(t, owner, []);
      const created = await send('POST', '/services', token, { type: 'owntracks', name: 'phone', config: {} });
      expect(created.statusCode).toBe(201);
      const tracker = created.json<{ id: string; ingest: { url: string; token: string } }>();
      const fix = {
        _type: 'location',
        tst: 1_737_558_539,
        lat: 52.520008,
        lon: 13.404954,
        alt: 48,
        acc: 12,
        vel: 36,
        cog: 270,
      };
      const ingested = await t.app.inject({
        method: 'POST',
        url: new URL(tracker.ingest.url).pathname,
        headers: {
          authorization: `Basic ${Buffer.from(`me:${tracker.ingest.token}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        payload: JSON.stringify(fix),
      });
      expect(ingested.statusCode).toBe(200);
      const view = await send('POST', '/views', token, { name: 'all', kinds: ['locations'], scope: 'public' });
      const [mine] = (await get('/locations/public?count=1', reader)).json<Row[]>();
      // The owner reading with get_private_scope: the tracker, and everything it measured.
      expect(mine).toMatchObject({ scope: 'public', source: tracker.id, lat: fix.lat, lon: fix.lon, speed: 10 });
      const byId = await get(`/locations/id/${mine!.id as string}`, reader);
      expect(byId.json()).toEqual(mine);

      const reads: [string, string, string?][] = [
        ...publicReads(owner.username, view.json<{ id: string }>().id, appToken),
        ['json1', `/locations/id/${mine!.id as string}`],
        ['json1', `/locations/id/${mine!.id as string}`, appToken],
      ];
      for (const [format, url, token] of reads) {
        const response = await get(url, token);
        expect(response.statusCode, url).toBe(200);
        expect(response.body, url).not.toContain(tracker.id);
        if (format === 'gpx') continue;
        const rows = format === 'json1' ? [response.json<Row>()] : pointsOf(format, response.body).rows;
        expect(
          rows.map((row) => row.source),
          url,
        ).toEqual([format === 'csv' ? '' : null]);
        const speed = precisionM === 0 ? 10 : null;
        expect(
          rows.map((row) => num(row.speed)),
          url,
        ).toEqual([speed]);
      }
    });
  }
});

describe('a post a service brought', () => {
  it('names no service to strangers: by id, in the public collection and feeds, on the public page', async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['create_service', 'create_post']);
    const reader = await tokenFor(t, owner, ['get_private_scope']);
    const created = await send('POST', '/services', token, { type: 'owntracks', name: 'phone', config: {} });
    const service = created.json<{ id: string }>().id;
    const posted = await send('POST', '/posts', token, { text: 'brought in', groups: [], scope: 'public' });
    const id = posted.json<{ id: string }>().id;
    // As an import of that service stores it (src/services/polling): the post names its service.
    await t.database.db.updateTable('posts').set({ source: service }).where('id', '=', id).execute();

    const mine = await get(`/posts/id/${id}`, reader);
    expect(mine.json<Row>().source).toBe(service);
    for (const [url, token] of [
      [`/posts/id/${id}`, undefined],
      [`/posts/id/${id}`, await tokenFor(t, owner, [])],
      [`/posts/public/${owner.username}`, undefined],
      [`/posts/public/${owner.username}?format=atom`, undefined],
      [`/posts/public/${owner.username}?format=jsonfeed`, undefined],
      [`/@${owner.username}`, undefined],
      [`/@${owner.username}/${id}`, undefined],
    ] as const) {
      const response = await get(url, token);
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toContain('brought in');
      expect(response.body, url).not.toContain(service);
    }
  });
});

describe("the owner's own public items, read with get_private_scope", () => {
  const HOME = { lat: 48.137154, lon: 11.576124 };
  const AWAY = { lat: 48.2, lon: 11.7 };
  const PRECISION_M = 1000;
  let owner: Awaited<ReturnType<typeof createTestUser>>;
  let full: string;
  let appToken: string;
  let posts: { home: string; away: string };
  let points: { home: string; away: string };

  beforeAll(async () => {
    owner = await createTestUser(t.database);
    await updateSettings(t.database.db, owner.id, {
      publicLocationPrecisionM: PRECISION_M,
      privacyZones: [{ name: 'home', ...HOME, radius_m: 200 }],
    });
    const writer = await tokenFor(t, owner, ['create_post', 'write_locations']);
    full = await tokenFor(t, owner, ['get_private_scope']);
    appToken = await tokenFor(t, owner, []);
    const write = async (location: { lat: number; lon: number }, text: string) => {
      const response = await send('POST', '/posts', writer, { text, groups: [], scope: 'public', location });
      expect(response.statusCode).toBe(202);
      return response.json<{ id: string }>().id;
    };
    posts = { home: await write(HOME, 'at home'), away: await write(AWAY, 'out') };
    const fixes = [HOME, AWAY].map((place, i) => ({ ...place, time: 1000 + i, speed: 2, scope: 'public' }));
    expect((await send('POST', '/locations', writer, fixes)).statusCode).toBe(200);
    const rows = await t.database.db
      .selectFrom('locations')
      .select(['id', 'time'])
      .where('user_id', '=', owner.id)
      .execute();
    const idAt = (time: number) => rows.find((row) => Number(row.time) === time * 1000)!.id;
    points = { home: idAt(1000), away: idAt(1001) };
  });

  const rounded = roundPoint(AWAY.lat, AWAY.lon, PRECISION_M);
  const locationOf = (body: Row[], id: string) => body.find((post) => post.id === id)?.location;

  it('a post, by id and in their public collection: exact, inside the privacy zone too', async () => {
    expect((await get(`/posts/id/${posts.home}`, full)).json()).toMatchObject({ location: HOME });
    expect((await get(`/posts/id/${posts.away}`, full)).json()).toMatchObject({ location: AWAY });
    const own = (await get('/posts/public', full)).json<Row[]>();
    expect([locationOf(own, posts.home), locationOf(own, posts.away)]).toEqual([HOME, AWAY]);
  });

  it('strangers, and the owner without get_private_scope, still get none in the zone and rounded outside', async () => {
    for (const token of [undefined, appToken]) {
      expect((await get(`/posts/id/${posts.home}`, token)).json()).toMatchObject({ location: null });
      expect((await get(`/posts/id/${posts.away}`, token)).json()).toMatchObject({ location: rounded });
    }
    for (const [url, token] of [
      [`/posts/public/${owner.username}`, undefined],
      ['/posts/public', appToken],
    ] as const) {
      const page = (await get(url, token)).json<Row[]>();
      expect([locationOf(page, posts.home), locationOf(page, posts.away)], url).toEqual([null, rounded]);
    }
  });

  it('a medium, by id and in their public collection: exact, inside the privacy zone too', async () => {
    const [home, away] = await insertItems(t.database, 'media', owner.id, [{ scope: 'public' }, { scope: 'public' }]);
    for (const [id, place] of [
      [home!, HOME],
      [away!, AWAY],
    ] as const) {
      await t.database.db.updateTable('media').set(place).where('id', '=', id).execute();
    }
    expect((await get(`/media/id/${home!}`, full)).json()).toMatchObject({ location: HOME });
    expect((await get(`/media/id/${away!}`, full)).json()).toMatchObject({ location: AWAY });
    const own = (await get('/media/public', full)).json<Row[]>();
    expect([locationOf(own, home!), locationOf(own, away!)]).toEqual([HOME, AWAY]);
    for (const token of [undefined, appToken]) {
      expect((await get(`/media/id/${home!}`, token)).json()).toMatchObject({ location: null });
      expect((await get(`/media/id/${away!}`, token)).json()).toMatchObject({ location: rounded });
    }
    const strangers = (await get(`/media/public/${owner.username}`)).json<Row[]>();
    expect([locationOf(strangers, home!), locationOf(strangers, away!)]).toEqual([null, rounded]);
  });

  it('a point, by id: exact with what it measured; strangers get it rounded, and not the one in the zone', async () => {
    expect((await get(`/locations/id/${points.home}`, full)).json()).toMatchObject({ ...HOME, speed: 2 });
    expect((await get(`/locations/id/${points.away}`, full)).json()).toMatchObject({ ...AWAY, speed: 2 });
    expect((await get(`/locations/id/${points.away}`)).json()).toMatchObject({ ...rounded, speed: null });
    expect((await get(`/locations/id/${points.home}`)).statusCode).toBe(401);
  });

  it('the web timeline shows the exact places of their public posts', async () => {
    const { cookie: session } = await signInThroughForm(t.app, owner.username, owner.password);
    const timeline = await t.app.inject({
      method: 'GET',
      url: '/?kind=posts&scope=public',
      headers: { cookie: session },
    });
    expect(timeline.statusCode).toBe(200);
    expect(timeline.body).toContain(`At ${HOME.lat}, ${HOME.lon}`);
    expect(timeline.body).toContain(`At ${AWAY.lat}, ${AWAY.lon}`);
  });
});
