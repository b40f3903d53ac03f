// Vector tiles decoded by @mapbox/vector-tile (not our reader): what a tile holds adds up to
// the points in its bounds and time range; public tiles hold public points only, at rounded
// positions placed by those positions; ETags follow the right version.
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestDatabase, createTestUser, DIALECT, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { boxFilter } from '../lib/box.repo.ts';
import { migrations } from '../db/migrations/index.ts';
import { foldCellLog } from '../locations/cells.repo.ts';
import { cell } from '../db/migrations/0012_location_history.ts';
import { CELL_LEVELS } from '../db/migrations/0027_cell_level_17.ts';
import { insertLocationsGrouped } from '../locations/locations.repo.ts';
import { newId } from '../lib/ids.ts';
import { roundPoint } from '../privacy/precision.ts';
import { updateSettings } from '../settings/settings.logic.ts';

let t: TestApp;
let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
let aliceAll: string;
let aliceNoPrivate: string;
let bobAll: string;

/** A deterministic spread of points: the same numbers on every run. */
type Seed = { time: number; lat: number; lon: number; scope: 'public' | 'private' };

function spread(
  count: number,
  seed: number,
  around: { lat: number; lon: number },
  degrees: number,
): Omit<Seed, 'scope'>[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, (_, index) => ({
    time: 1_700_000_000_000 + index * 5000 + seed,
    lat: around.lat + (next() - 0.5) * degrees,
    lon: around.lon + (next() - 0.5) * degrees,
  }));
}

const berlin = { lat: 52.52, lon: 13.4 };
const alicePoints: Seed[] = [
  ...spread(600, 1, berlin, 0.2).map((p, i) => ({
    ...p,
    scope: i % 3 === 0 ? ('public' as const) : ('private' as const),
  })),
  ...spread(200, 2, { lat: -33.9, lon: 151.2 }, 20).map((p) => ({ ...p, scope: 'private' as const })),
  // Both sides of the antimeridian.
  { time: 1_690_000_000_000, lat: -17.0, lon: 179.99, scope: 'public' as const },
  { time: 1_690_000_060_000, lat: -17.0, lon: -179.99, scope: 'public' as const },
];
const bobPoints: Seed[] = spread(300, 3, berlin, 0.2).map((p) => ({ ...p, scope: 'private' as const }));

beforeAll(async () => {
  t = await buildTestApp();
  alice = await createTestUser(t.database, { username: 'alice' });
  bob = await createTestUser(t.database, { username: 'bob' });
  aliceAll = await tokenFor(t, alice, ['get_private_scope']);
  aliceNoPrivate = await tokenFor(t, alice, []);
  bobAll = await tokenFor(t, bob, ['get_private_scope']);
  await insertItems(t.database, 'locations', alice.id, alicePoints);
  await insertItems(t.database, 'locations', bob.id, bobPoints);
});
afterAll(() => t.close());

const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

/** The tile a position is in at zoom z (the test's own arithmetic, Web Mercator). */
function tileOf(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  const rad = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
  const fx = ((lon + 180) / 360) * n;
  const fy = ((1 - Math.asinh(Math.tan(rad)) / Math.PI) / 2) * n;
  const clamp = (v: number) => Math.min(n - 1, Math.max(0, Math.floor(v)));
  return [clamp(fx), clamp(fy)];
}

interface Decoded {
  cells: { count: number; lon: number; lat: number }[];
  points: { time: number; lon: number; lat: number }[];
  tracks: number;
}

function decode(body: Buffer, z: number, x: number, y: number): Decoded {
  const tile = new VectorTile(new PbfReader(body));
  const features = (name: string) => {
    const layer = tile.layers[name];
    return layer ? Array.from({ length: layer.length }, (_, i) => layer.feature(i)) : [];
  };
  const lonLat = (feature: ReturnType<VectorTile['layers'][string]['feature']>) => {
    const geometry = feature.toGeoJSON(x, y, z).geometry as unknown as { coordinates: [number, number] };
    return { lon: geometry.coordinates[0], lat: geometry.coordinates[1] };
  };
  return {
    cells: features('cells').map((f) => ({ count: f.properties.count as number, ...lonLat(f) })),
    points: features('points').map((f) => ({ time: f.properties.time as number, ...lonLat(f) })),
    tracks: features('tracks').length,
  };
}

const total = (d: Decoded) => d.cells.reduce((sum, cell) => sum + cell.count, 0) + d.points.length;

const inTile = (points: Seed[], z: number, x: number, y: number) =>
  points.filter((p) => {
    const [px, py] = tileOf(p.lat, p.lon, z);
    return px === x && py === y;
  });

describe("the owner's tiles", () => {
  it.each([0, 3, 5, 7, 9, 10, 11, 12, 14, 18])(
    'at zoom %i add up to the points in the tile, of both scopes',
    async (z) => {
      const [x, y] = tileOf(berlin.lat, berlin.lon, z);
      const response = await get(`/locations/tiles/${z}/${x}/${y}.mvt`, aliceAll);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
      const decoded = decode(response.rawPayload, z, x, y);
      expect(total(decoded)).toBe(inTile(alicePoints, z, x, y).length);
      if (z >= 12 && decoded.points.length > 0) {
        expect(decoded.cells).toEqual([]);
        expect(decoded.tracks).toBeGreaterThan(0);
      }
      if (z < 12) expect(decoded.points).toEqual([]);
    },
  );

  it("keep a point within half a unit of the tile's south edge on the tile's last unit, where a renderer draws it", async () => {
    // At zoom 13 this point is 4095.87 units down its tile: rounded, it would sit on the next tile's edge.
    const carol = await createTestUser(t.database);
    const point = { time: 1_560_000_000_000, lat: 52.3756, lon: 4.8984, scope: 'private' as const };
    await insertItems(t.database, 'locations', carol.id, [point]);
    const [x, y] = tileOf(point.lat, point.lon, 13);
    expect([x, y]).toEqual([4207, 2691]);
    const response = await get(`/locations/tiles/13/${x}/${y}.mvt`, await tokenFor(t, carol, ['get_private_scope']));
    const layer = new VectorTile(new PbfReader(response.rawPayload)).layers.points!;
    expect(layer.length).toBe(1);
    const [[at]] = layer.feature(0).loadGeometry() as unknown as [[{ x: number; y: number }]];
    expect(at).toEqual({ x: 1908, y: 4095 });
  });

  it('hold the points themselves at high zoom, at their exact positions and times', async () => {
    const point = alicePoints[5]!;
    const [x, y] = tileOf(point.lat, point.lon, 16);
    const decoded = decode((await get(`/locations/tiles/16/${x}/${y}.mvt`, aliceAll)).rawPayload, 16, x, y);
    const found = decoded.points.find((p) => p.time === point.time / 1000);
    expect(found).toBeDefined();
    // Extent 4096 at zoom 16: a tile unit is under 15 cm.
    expect(Math.abs(found!.lat - point.lat)).toBeLessThan(1e-5);
    expect(Math.abs(found!.lon - point.lon)).toBeLessThan(1e-5);
  });

  it('count every tile of a zoom once: all tiles together hold all points', async () => {
    const z = 4;
    const tiles = new Set(alicePoints.map((p) => tileOf(p.lat, p.lon, z).join('/')));
    let sum = 0;
    for (const key of tiles) {
      const [x, y] = key.split('/').map(Number) as [number, number];
      sum += total(decode((await get(`/locations/tiles/${z}/${x}/${y}.mvt`, aliceAll)).rawPayload, z, x, y));
    }
    expect(sum).toBe(alicePoints.length);
  });

  it.each([0, 8, 13])('at zoom %i keep to since_time and until_time', async (z) => {
    const since = 1_700_000_500_000;
    const until = 1_700_001_500_000;
    const [x, y] = tileOf(berlin.lat, berlin.lon, z);
    const response = await get(
      `/locations/tiles/${z}/${x}/${y}.mvt?since_time=${since / 1000}&until_time=${until / 1000}`,
      aliceAll,
    );
    const expected = inTile(alicePoints, z, x, y).filter((p) => p.time >= since && p.time < until).length;
    expect(expected).toBeGreaterThan(0);
    expect(total(decode(response.rawPayload, z, x, y))).toBe(expected);
  });

  it("never hold another person's points", async () => {
    const [x, y] = tileOf(berlin.lat, berlin.lon, 10);
    const bobs = bobPoints.map((p) => ({ ...p, scope: 'private' as const }));
    expect(total(decode((await get(`/locations/tiles/10/${x}/${y}.mvt`, bobAll)).rawPayload, 10, x, y))).toBe(
      inTile(bobs, 10, x, y).length,
    );
    const [sx, sy] = tileOf(-33.9, 151.2, 2);
    expect((await get(`/locations/tiles/2/${sx}/${sy}.mvt`, bobAll)).rawPayload.length).toBe(0);
  });

  it('without get_private_scope are the public tiles', async () => {
    const [x, y] = tileOf(berlin.lat, berlin.lon, 14);
    const own = await get(`/locations/tiles/14/${x}/${y}.mvt`, aliceNoPrivate);
    const anyone = await get(`/locations/public/alice/tiles/14/${x}/${y}.mvt`);
    expect(own.statusCode).toBe(200);
    expect(own.rawPayload.equals(anyone.rawPayload)).toBe(true);
  });

  it('have an ETag that every write moves, private ones too, and answer 304 until then', async () => {
    const url = '/locations/tiles/0/0/0.mvt';
    const first = await get(url, aliceAll);
    const etag = first.headers.etag as string;
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await get(url, aliceAll, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    await insertItems(t.database, 'locations', alice.id, [
      { time: 1_600_000_000_000, lat: 1, lon: 1, scope: 'private' },
    ]);
    const after = await get(url, aliceAll, { 'if-none-match': etag });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    await t.database.db.deleteFrom('locations').where('time', '=', 1_600_000_000_000).execute();
  });

  it('are 400 for a tile that does not exist, 401 without a token', async () => {
    for (const path of ['19/0/0', '2/4/0', '2/0/4', 'a/0/0', '1/-1/0', '0/0/0.5']) {
      const response = await get(`/locations/tiles/${path}.mvt`, aliceAll);
      expect([path, response.statusCode, response.headers['content-type']]).toEqual([
        path,
        400,
        'application/problem+json; charset=utf-8',
      ]);
    }
    expect((await get('/locations/tiles/0/0/0.mvt?since_time=', aliceAll)).statusCode).toBe(400);
    expect((await get('/locations/tiles/0/0/0.mvt')).statusCode).toBe(401);
  });
});

describe('public tiles', () => {
  const precision = 1000;
  const publicPoints = () => alicePoints.filter((p) => p.scope === 'public');
  const snapped = () => publicPoints().map((p) => ({ ...p, ...roundPoint(p.lat, p.lon, precision) }));

  it.each([0, 6, 11, 13, 15])('at zoom %i hold the public points whose rounded position is in the tile', async (z) => {
    const [x, y] = tileOf(berlin.lat, berlin.lon, z);
    const response = await get(`/locations/public/alice/tiles/${z}/${x}/${y}.mvt`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, no-cache');
    const decoded = decode(response.rawPayload, z, x, y);
    expect(total(decoded)).toBe(inTile(snapped(), z, x, y).length);
    // Every point shown is a rounded position (within a tile unit), never an exact one.
    const grid = new Set(snapped().map((p) => `${p.lat},${p.lon}`));
    for (const point of decoded.points) {
      const near = snapped().some((p) => Math.abs(p.lat - point.lat) < 1e-4 && Math.abs(p.lon - point.lon) < 1e-4);
      expect(near).toBe(true);
      expect(grid.size).toBeGreaterThan(0);
    }
  });

  it('never hold a private point: a region of private points only is empty', async () => {
    const [x, y] = tileOf(-33.9, 151.2, 5);
    expect((await get(`/locations/public/alice/tiles/5/${x}/${y}.mvt`)).rawPayload.length).toBe(0);
    const own = total(decode((await get(`/locations/tiles/5/${x}/${y}.mvt`, aliceAll)).rawPayload, 5, x, y));
    expect(own).toBe(inTile(alicePoints, 5, x, y).length);
    expect(own).toBeGreaterThan(0);
  });

  it('decide by the rounded position: a point near a tile edge is where its rounded position is', async () => {
    await updateSettings(t.database.db, alice.id, { publicLocationPrecisionM: 5000 });
    try {
      const z = 12;
      const tiles = new Set(snappedAt(5000).map((p) => tileOf(p.lat, p.lon, z).join('/')));
      const exactTiles = new Set(publicPoints().map((p) => tileOf(p.lat, p.lon, z).join('/')));
      let sum = 0;
      for (const key of new Set([...tiles, ...exactTiles])) {
        const [x, y] = key.split('/').map(Number) as [number, number];
        const decoded = decode((await get(`/locations/public/alice/tiles/${z}/${x}/${y}.mvt`)).rawPayload, z, x, y);
        expect([key, total(decoded)]).toEqual([key, inTile(snappedAt(5000), z, x, y).length]);
        sum += total(decoded);
      }
      expect(sum).toBe(publicPoints().length);
      // Rounding moved some points into other tiles than their exact positions are in.
      const moved = publicPoints().filter(
        (p, i) =>
          tileOf(p.lat, p.lon, z).join('/') !== tileOf(snappedAt(5000)[i]!.lat, snappedAt(5000)[i]!.lon, z).join('/'),
      );
      expect(moved.length).toBeGreaterThan(0);
    } finally {
      await updateSettings(t.database.db, alice.id, { publicLocationPrecisionM: precision });
    }
  });
  const snappedAt = (m: number) => publicPoints().map((p) => ({ ...p, ...roundPoint(p.lat, p.lon, m) }));

  it('cross the antimeridian by the rounded positions', async () => {
    const [wx, wy] = tileOf(-17, -179.99, 1);
    const [ex, ey] = tileOf(-17, 179.99, 1);
    const west = total(decode((await get(`/locations/public/alice/tiles/1/${wx}/${wy}.mvt`)).rawPayload, 1, wx, wy));
    const east = total(decode((await get(`/locations/public/alice/tiles/1/${ex}/${ey}.mvt`)).rawPayload, 1, ex, ey));
    const expected = snapped().filter((p) => p.lat < 0);
    expect(west + east).toBe(expected.length);
    expect(west).toBe(inTile(snapped(), 1, wx, wy).length);
  });

  it('have an ETag no private write moves, that public writes and the precision do', async () => {
    const url = '/locations/public/alice/tiles/0/0/0.mvt';
    const etag = (await get(url)).headers.etag as string;
    await insertItems(t.database, 'locations', alice.id, [
      { time: 1_600_000_000_000, lat: 2, lon: 2, scope: 'private' },
    ]);
    const afterPrivate = await get(url, undefined, { 'if-none-match': etag });
    expect(afterPrivate.statusCode).toBe(304);
    expect(afterPrivate.headers.etag).toBe(etag);
    await updateSettings(t.database.db, alice.id, { publicLocationPrecisionM: 2000 });
    expect((await get(url, undefined, { 'if-none-match': etag })).statusCode).toBe(200);
    await updateSettings(t.database.db, alice.id, { publicLocationPrecisionM: precision });
    await t.database.db.deleteFrom('locations').where('time', '=', 1_600_000_000_000).execute();
  });

  it('are 404 for an unknown user, 400 for a tile that does not exist', async () => {
    expect((await get('/locations/public/nobody/tiles/0/0/0.mvt')).statusCode).toBe(404);
    expect((await get('/locations/public/alice/tiles/1/2/0.mvt')).statusCode).toBe(400);
  });
});

describe('the points of a small box', () => {
  it('are found by seeking the cells of each row of latitude in the index locations_position_cells', async () => {
    const box = { minLat: 52.5, maxLat: 52.52, minLon: 13.38, maxLon: 13.42 };
    const query = sql`select time, lat, lon from locations where user_id = ${alice.id} and ${boxFilter(box)}`;
    const plan = await t.database.db.transaction().execute(async (trx) => {
      if (DIALECT === 'sqlite') {
        const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(trx);
        return rows.map((row) => row.detail).join('\n');
      }
      // So few rows that PostgreSQL would read the table: asked not to, it shows what it can use.
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('locations_position_cells');
    // The seek: the person, one row of cells at a time, and in it the range of cells of the box's longitudes.
    if (DIALECT === 'sqlite') expect(plan).toContain('(user_id=? AND <expr>=? AND <expr>>? AND <expr><?)');
    else expect(plan).toMatch(/Index Cond: .*floor\(\(lon \* '256'::double precision\)\)\) >=/);
    const found = await sql<{ time: number }>`${query}`.execute(t.database.db);
    const expected = alicePoints.filter(
      (p) => p.lat >= box.minLat && p.lat <= box.maxLat && p.lon >= box.minLon && p.lon <= box.maxLon,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(found.rows.map((row) => Number(row.time)).sort()).toEqual(expected.map((p) => p.time).sort());
  });
});

describe('the cell counts', () => {
  it('are folded from the log by the writer of a batch, in its transaction (SQLite), and add up', async () => {
    const dave = await createTestUser(t.database, { username: 'dave' });
    const writer = await tokenFor(t, dave, ['write_locations', 'get_private_scope']);
    const points = spread(50, 6, berlin, 0.01);
    const response = await t.app.inject({
      method: 'POST',
      url: '/locations',
      headers: { authorization: `Bearer ${writer}` },
      payload: points.map((p) => ({ time: p.time / 1000, lat: p.lat, lon: p.lon, scope: 'private' })),
    });
    expect(response.statusCode).toBe(200);
    if (DIALECT === 'sqlite') {
      const logged = await t.database.db.selectFrom('location_cell_log').select('cx').execute();
      expect(logged).toEqual([]);
    }
    const cells = await t.database.db
      .selectFrom('location_cells')
      .select(['level', (eb) => eb.fn.sum<number>('points').as('points')])
      .where('user_id', '=', dave.id)
      .groupBy('level')
      .orderBy('level')
      .execute();
    expect(cells.map((row) => [row.level, Number(row.points)])).toEqual(
      [6, 9, 12, 15, 16, 17, 18].map((level) => [level, 50]),
    );
  });
  it('add up when the batches of several people share one commit, their history written once for them all', async () => {
    const erin = await createTestUser(t.database, { username: 'erin' });
    const frank = await createTestUser(t.database, { username: 'frank' });
    const rows = (userId: string, points: Omit<Seed, 'scope'>[], scope: 'public' | 'private') =>
      points.map((p) => ({
        user_id: userId,
        id: newId(),
        scope,
        time: p.time,
        created_at: p.time,
        lat: p.lat,
        lon: p.lon,
        alt: null,
        accuracy: null,
        speed: null,
        heading: null,
        source: null,
      }));
    // Erin's two batches cross the same cells; the last is her first again.
    const erinPublic = spread(20, 7, berlin, 0.01);
    const erinPrivate = spread(20, 8, berlin, 0.01);
    const frankPublic = spread(30, 9, berlin, 0.01);
    const stored = await Promise.all([
      insertLocationsGrouped(t.database.db, rows(erin.id, erinPublic, 'public')),
      insertLocationsGrouped(t.database.db, rows(erin.id, erinPrivate, 'private')),
      insertLocationsGrouped(t.database.db, rows(frank.id, frankPublic, 'public')),
      insertLocationsGrouped(t.database.db, rows(erin.id, erinPublic, 'public')),
    ]);
    expect(stored).toEqual([20, 20, 30, 0]);
    if (DIALECT === 'sqlite')
      expect(await t.database.db.selectFrom('location_cell_log').select('cx').execute()).toEqual([]);
    const finest = async (userId: string) =>
      (
        await t.database.db
          .selectFrom('location_cells')
          .select(['cx', 'cy', 'points'])
          .where('user_id', '=', userId)
          .where('level', '=', 18)
          .where('points', '>', 0)
          .execute()
      )
        .map((cell) => `${cell.cx}/${cell.cy}:${Number(cell.points)}`)
        .sort();
    const expected = (points: Omit<Seed, 'scope'>[]) => {
      const counts = new Map<string, number>();
      for (const p of points) {
        const key = tileOf(p.lat, p.lon, 18).join('/');
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return [...counts].map(([key, n]) => `${key}:${n}`).sort();
    };
    expect(await finest(erin.id)).toEqual(expected([...erinPublic, ...erinPrivate]));
    expect(await finest(frank.id)).toEqual(expected(frankPublic));
    const counters = await t.database.db
      .selectFrom('users')
      .select(['username', 'public_locations'])
      .where('id', 'in', [erin.id, frank.id])
      .orderBy('username')
      .execute();
    expect(counters.map((row) => [row.username, Number(row.public_locations)])).toEqual([
      ['erin', 20],
      ['frank', 30],
    ]);
  });
});

describe('the cells of every level', () => {
  it("are each point's own cell at that level, at the edges of the grid too", async () => {
    const gina = await createTestUser(t.database, { username: 'gina' });
    const edges = [
      { lat: 85.2, lon: 180 },
      { lat: -89.9, lon: -180 },
      { lat: 85.0511, lon: 179.9999999 },
      { lat: 1e-300, lon: 0 },
      { lat: -1e-300, lon: -0.0000001 },
      { lat: 0, lon: 0 },
      { lat: 52.52, lon: 13.4 },
      { lat: -33.8688, lon: 151.2093 },
    ];
    const points = [
      ...edges.map((p, i) => ({ ...p, time: 1_710_000_000_000 + i * 1000, scope: 'public' as const })),
      ...spread(40, 11, berlin, 0.5).map((p) => ({ ...p, scope: 'private' as const })),
    ];
    await insertItems(t.database, 'locations', gina.id, points);
    await foldCellLog(t.database.db);
    for (const level of CELL_LEVELS) {
      // The cell computed at this level directly, as migration 0012 first counted them.
      const { cx, cy } = cell('r', DIALECT === 'sqlite', String(level));
      const direct = await sql<{ cx: number; cy: number; points: number }>`select cx, cy, count(*) as points
        from (select ${cx} as cx, ${cy} as cy from locations r where r.user_id = ${gina.id}) c
        group by cx, cy`.execute(t.database.db);
      const kept = await t.database.db
        .selectFrom('location_cells')
        .select(['cx', 'cy', 'points'])
        .where('user_id', '=', gina.id)
        .where('level', '=', level)
        .where('points', '>', 0)
        .execute();
      const key = (cells: { cx: number; cy: number; points: number | string | bigint }[]) =>
        cells.map((c) => `${c.cx}/${c.cy}:${Number(c.points)}`).sort();
      expect(key(kept), `level ${level}`).toEqual(key(direct.rows));
    }
  });
});

describe.each([
  // Level 17 came after the cell log: points logged and not folded yet when it runs count too.
  { migration: '0023 (cells of level 16)', before: '0021_history_days', level: 16 },
  { migration: '0027 (cells of level 17)', before: '0026_cell_log', level: 17 },
])('migration $migration', ({ before: previous, level }) => {
  it('counts the points written before it, and the triggers keep counting after', async () => {
    const test = await createTestDatabase();
    try {
      const db = test.database.db;
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      await migrator.migrateTo(previous);
      const carol = await createTestUser(test.database, { username: 'carol' });
      const before = spread(300, 4, berlin, 0.3).map((p) => ({ ...p, scope: 'private' as const }));
      await insertItems(test.database, 'locations', carol.id, before);
      await migrateToLatest(test.database);
      const counted = async () => {
        await foldCellLog(db);
        return (
          await db
            .selectFrom('location_cells')
            .select(['cx', 'cy', 'points'])
            .where('user_id', '=', carol.id)
            .where('level', '=', level)
            .where('points', '>', 0)
            .orderBy('cx')
            .orderBy('cy')
            .execute()
        ).map((cell) => `${cell.cx}/${cell.cy}:${Number(cell.points)}`);
      };
      const expected = (points: Seed[]) => {
        const counts = new Map<string, number>();
        for (const p of points) {
          const key = tileOf(p.lat, p.lon, level).join('/');
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        return [...counts]
          .map(([key, n]) => ({ key, n, xy: key.split('/').map(Number) as [number, number] }))
          .sort((a, b) => a.xy[0] - b.xy[0] || a.xy[1] - b.xy[1])
          .map(({ key, n }) => `${key}:${n}`);
      };
      expect(await counted()).toEqual(expected(before));
      const after = spread(100, 5, berlin, 0.3).map((p) => ({ ...p, time: p.time + 1e9, scope: 'private' as const }));
      await insertItems(test.database, 'locations', carol.id, after);
      await db.deleteFrom('locations').where('time', '<', before[50]!.time).execute();
      expect(await counted()).toEqual(expected([...before.slice(50), ...after]));
    } finally {
      await test.database.close();
      await test.drop();
    }
  });
});
