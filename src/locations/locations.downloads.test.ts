// Whole-collection downloads (all=true), each read back by a parser no one here wrote, and a
// client that goes away after the first chunk leaving nothing open behind it.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gpx as gpxToGeoJson } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { parse as parseCsv } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, DIALECT, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { toGeoJson } from './locations.formats.ts';
import { roundPoint } from '../privacy/precision.ts';
import { geojsonSeq } from './locations.downloads.ts';

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let reader: string;
let publicOnly: string;

/** More than two batches of 5000, so the keyset paging inside is crossed twice. */
const COUNT = 12_345;
const T0 = 1_700_000_000_000;
const seeds = Array.from({ length: COUNT }, (_, i) => ({
  time: T0 + i * 1000,
  lat: 48 + (i % 1000) * 0.0001,
  lon: 11 + Math.floor(i / 1000) * 0.001,
  scope: i % 4 === 0 ? ('public' as const) : ('private' as const),
}));
const privates = seeds.filter((s) => s.scope === 'private');
const publics = seeds.filter((s) => s.scope === 'public');

beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database, { username: 'mover' });
  reader = await tokenFor(t, user, ['get_private_scope']);
  publicOnly = await tokenFor(t, user, []);
  await insertItems(t.database, 'locations', user.id, seeds);
  await insertItems(t.database, 'locations', (await createTestUser(t.database)).id, seeds.slice(0, 100));
});
afterAll(() => t.close());

const get = (url: string, token?: string) =>
  t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('all=true downloads', () => {
  it('stream the whole private collection as GeoJSON, oldest first, with a filename', async () => {
    const response = await get('/locations/private?all=true&format=geojson', reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/geo+json');
    expect(response.headers['content-disposition']).toBe('attachment; filename="mover-locations-private.geojson"');
    const collection = JSON.parse(response.body) as {
      type: string;
      features: { geometry: { coordinates: number[] }; properties: { time: number; scope: string } }[];
    };
    expect(collection.type).toBe('FeatureCollection');
    expect(collection.features.map((f) => [f.properties.time, ...f.geometry.coordinates])).toEqual(
      privates.map((s) => [s.time / 1000, s.lon, s.lat]),
    );
  });

  it('write each Feature as the GeoJSON page representation does, altitude last in the coordinates', () => {
    const point = {
      id: 'x"1',
      username: 'mover',
      scope: 'public' as const,
      time: 1.5,
      lat: -1.25,
      lon: 2e-7,
      alt: null,
      accuracy: 5,
      speed: null,
      heading: 90,
      source: 'a "tracker"\n',
      created_at: 2,
    };
    const properties =
      '"properties":{"id":"x\\"1","username":"mover","scope":"public","time":1.5,"accuracy":5,"speed":null,' +
      '"heading":90,"source":"a \\"tracker\\"\\n","created_at":2,';
    expect(geojsonSeq([point, { ...point, alt: 34.5 }])).toBe(
      `\x1e{"type":"Feature","id":"x\\"1","geometry":{"type":"Point","coordinates":[2e-7,-1.25]},${properties}"alt":null}}\n` +
        `\x1e{"type":"Feature","id":"x\\"1","geometry":{"type":"Point","coordinates":[2e-7,-1.25,34.5]},${properties}"alt":34.5}}\n`,
    );
    expect(JSON.stringify(toGeoJson([point]).features[0])).toBe(geojsonSeq([point]).slice(1, -1));
  });

  it('as GPX, read by @tmcw/togeojson', async () => {
    const response = await get('/locations/private?all=true&format=gpx', reader);
    expect(response.headers['content-type']).toBe('application/gpx+xml; charset=utf-8');
    const document = new DOMParser().parseFromString(response.body, 'application/xml');
    const parsed = gpxToGeoJson(document);
    const line = parsed.features[0]!;
    const coordinates = (line.geometry as { coordinates: number[][] }).coordinates;
    expect(coordinates).toEqual(privates.map((s) => [s.lon, s.lat]));
    const times = (line.properties as { coordinateProperties: { times: string[] } }).coordinateProperties.times;
    expect(times.at(-1)).toBe(new Date(privates.at(-1)!.time).toISOString());
  });

  it('as CSV, read by csv-parse', async () => {
    const response = await get('/locations/private?all=true&format=csv', reader);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    const rows = parseCsv<Record<string, string>>(response.body, { columns: true });
    expect(rows).toHaveLength(privates.length);
    expect(Object.keys(rows[0]!)).toEqual([
      'id',
      'time',
      'time_iso',
      'lat',
      'lon',
      'alt',
      'accuracy',
      'speed',
      'heading',
      'scope',
      'source',
      'created_at',
    ]);
    expect(rows.map((r) => [Number(r.time), Number(r.lat), Number(r.lon), r.scope])).toEqual(
      privates.map((s) => [s.time / 1000, s.lat, s.lon, 'private']),
    );
    expect(rows[0]!.time_iso).toBe(new Date(privates[0]!.time).toISOString());
  });

  it('as GeoJSON Text Sequences (RFC 8142): RS, one Feature, LF per record', async () => {
    const response = await get('/locations/private?all=true&format=geojsonseq', reader);
    expect(response.headers['content-type']).toBe('application/geo+json-seq');
    expect(response.body.startsWith('\x1e')).toBe(true);
    expect(response.body.endsWith('\n')).toBe(true);
    const records = response.body.split('\x1e').slice(1);
    expect(records).toHaveLength(privates.length);
    for (const record of records) expect(record.endsWith('\n')).toBe(true);
    const features = records.map((record) => JSON.parse(record) as { type: string; properties: { time: number } });
    expect(features.every((f) => f.type === 'Feature')).toBe(true);
    expect(features.map((f) => f.properties.time)).toEqual(privates.map((s) => s.time / 1000));
  });

  it("keep to since_time and until_time; the owner's public collection is public points only, rounded", async () => {
    const since = (T0 + 1000 * 1000) / 1000;
    const until = (T0 + 3000 * 1000) / 1000;
    const response = await get(
      `/locations/public?all=true&format=csv&since_time=${since}&until_time=${until}`,
      publicOnly,
    );
    const rows = parseCsv<Record<string, string>>(response.body, { columns: true });
    const expected = publics.filter((s) => s.time >= since * 1000 && s.time < until * 1000);
    expect(rows.map((r) => [Number(r.time), Number(r.lat), Number(r.lon), r.scope])).toEqual(
      expected.map((s) => {
        const rounded = roundPoint(s.lat, s.lon, 1000);
        return [s.time / 1000, rounded.lat, rounded.lon, 'public'];
      }),
    );
  });

  it("of a user's public collection: anyone, public points only, rounded, no ETag", async () => {
    const response = await get('/locations/public/mover?all=true&format=geojson');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBeUndefined();
    expect(response.headers['content-disposition']).toBe('attachment; filename="mover-locations-public.geojson"');
    const features = (JSON.parse(response.body) as { features: { geometry: { coordinates: number[] } }[] }).features;
    expect(features.map((f) => f.geometry.coordinates)).toEqual(
      publics.map((s) => {
        const rounded = roundPoint(s.lat, s.lon, 1000);
        return [rounded.lon, rounded.lat];
      }),
    );
  });

  it('as a JSON array by default', async () => {
    const response = await get('/locations/public/mover?all=true');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((JSON.parse(response.body) as unknown[]).length).toBe(publics.length);
  });

  it('are 400 with a cursor or a bbox; pages take the new formats too', async () => {
    expect((await get('/locations/private?all=true&cursor=abc', reader)).statusCode).toBe(400);
    expect((await get('/locations/private?all=true&bbox=0,0,1,1', reader)).statusCode).toBe(400);
    expect((await get('/locations/private?all=yes', reader)).statusCode).toBe(400);
    const page = await get('/locations/private?format=csv&count=3&order=asc', reader);
    expect(parseCsv(page.body, { columns: true })).toHaveLength(3);
    const seq = await get('/locations/private?format=geojsonseq&count=2', reader);
    expect(seq.body.split('\x1e').slice(1)).toHaveLength(2);
  });
});

describe('a client that goes away halfway', () => {
  it('leaves nothing open: the next request and the next write work at once', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const firstChunk = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/locations/private?all=true&format=geojson',
          headers: { authorization: `Bearer ${reader}` },
        },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            // Gone after the first chunk, long before the 3 MB are sent.
            req.destroy();
            resolve(chunk.length);
          });
        },
      );
      req.on('error', () => {});
      req.once('error', reject);
      req.end();
    });
    expect(firstChunk).toBeGreaterThan(0);
    // Give the server a moment to notice the closed socket.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A write takes the database's write lock (SQLite) at once: no reader holds it.
    const started = performance.now();
    await insertItems(t.database, 'locations', user.id, [{ time: T0 - 1000, lat: 1, lon: 1, scope: 'private' }]);
    expect(performance.now() - started).toBeLessThan(2000);
    if (DIALECT === 'postgres') {
      // No other statement of this database is still running.
      const { rows } = await sql<{ n: number }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and state = 'active'`.execute(t.database.db);
      expect(Number(rows[0]!.n)).toBe(0);
    }
    const again = await get('/locations/private?all=true&format=geojsonseq', reader);
    expect(again.body.split('\x1e').slice(1)).toHaveLength(privates.length + 1);
    await t.database.db
      .deleteFrom('locations')
      .where('time', '=', T0 - 1000)
      .execute();
  });
});
