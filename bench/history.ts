// `npm run bench:history`: the location history at scale (docs/history.md), one
// person with BENCH_POINTS points (default 1,000,000) over ten years, on SQLite, or on
// PostgreSQL with BENCH_DATABASE_URL=postgres://user@host:port (a database of its own is made).
// Each measure beside its baseline in the same run, BENCH_ROUNDS rounds (default 3), medians
// and spread:
//   tiles at every zoom from 0 to 18 (BENCH_ZOOMS, e.g. "0,5,10"): p99 and largest size, each
//     tile asked BENCH_TILE_REPEAT times a round (default 5); baseline: the bare query of the
//     same tile's rows (better-sqlite3 or pg), without encoding, once a tile a round; each way
//     timed in a phase of its own in the round, after an untimed pass over the zoom's tiles;
//   on PostgreSQL with PostGIS installed (BENCH_POSTGIS=0 leaves it out), the same tiles made
//     the way PostGIS makes tiles: the points in a table of their own with a GiST index, and
//     ST_AsMVT over them (bench/postgis-tiles.ts), timed from this process, each tile
//     BENCH_POSTGIS_REPEAT times a round (default BENCH_TILE_REPEAT);
//   statistics per month over the ten years: p99 (and the first call, which brings the
//     quarter-hour aggregates up to date after seeding);
//   a streamed GeoJSON download of every point, from a server started for it: points/s, time
//     to first byte and the server's peak RSS growth in each round; baseline: a bare iterate of
//     the same rows (better-sqlite3's iterate, or a PostgreSQL cursor fetched 10,000 rows at a
//     time).
// BENCH_PROFILE=1 writes a CPU profile of the server to .tmp/. BENCH_HISTORY_DB keeps the
// seeded database (a file's path on SQLite, a database's name on PostgreSQL) and reuses it in
// later runs.
// The server runs in its own process (bench/server.ts); its RSS is read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { mercatorX, mercatorY, tileBounds } from '../src/history/geo.ts';
import { POINTS_MIN_ZOOM } from '../src/history/tiles.logic.ts';
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs';
import { DAYS, history, seedHistory, seedHistoryPostgres, seedPoints, seedPointsPostgres } from './history-seed.ts';
import { postgisAvailable, postgisTile, preparePostgis } from './postgis-tiles.ts';
import { createDatabase, databaseExists, databaseUrl, dropDatabase } from './seed-pg.ts';

const POINTS = Number(process.env.BENCH_POINTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TILE_REPEAT = Number(process.env.BENCH_TILE_REPEAT ?? 5);
// PostGIS sums a low-zoom tile from every point in it: seconds at ten million points.
const POSTGIS_REPEAT = Number(process.env.BENCH_POSTGIS_REPEAT ?? TILE_REPEAT);
const ZOOMS = process.env.BENCH_ZOOMS
  ? process.env.BENCH_ZOOMS.split(',').map(Number)
  : Array.from({ length: 19 }, (_, z) => z);
const work = mkdtempSync(join(tmpdir(), 'waypost-history-'));
const POSTGRES = process.env.BENCH_DATABASE_URL;
const children: ChildProcess[] = [];
const stores: Store[] = [];
let stopping = false;

// The client's own full collections must not be timed as the server's: `gc` without a flag.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const log = (line: string) => process.stdout.write(`${line}\n`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!;
const spread = (values: number[], digits = 1) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

async function startServer(path: string, userId: string): Promise<{ port: number; token: string; pid: number }> {
  // BENCH_PROFILE=1 writes a CPU profile of the server to .tmp/ (as bench/requests.ts does).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), '.tmp')}`] : [];
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...profile, join(import.meta.dirname, 'server.ts'), path, join(work, 'data')],
    {
      env: { ...process.env, BENCH_TOKEN_USER: userId, BENCH_TOKEN_PERMISSIONS: 'get_private_scope' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  child.on('exit', (code, signal) => {
    if (!stopping) log(`the server exited: code ${code}, signal ${signal}`);
  });
  for await (const line of createInterface({ input: child.stdout })) {
    const ready = JSON.parse(line) as { port: number; token: string };
    return { ...ready, pid: child.pid! };
  }
  throw new Error('the server exited before it was ready');
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

async function timed(url: string, token: string): Promise<{ ms: number; bytes: number; status: number }> {
  const begin = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.arrayBuffer();
  return { ms: performance.now() - begin, bytes: body.byteLength, status: response.status };
}

function tileOf(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  return [Math.floor(mercatorX(lon) * n), Math.floor(mercatorY(lat) * n)];
}

/** Where the history is, and the bare reads of the baselines. */
interface Store {
  /** The server's argument: the SQLite file's path or the PostgreSQL database's URL. */
  target: string;
  userId: string;
  /** The bare query of a box's rows, without encoding. */
  tileRows(bounds: ReturnType<typeof tileBounds>): Promise<void>;
  /**
   * After a large write: PostgreSQL's VACUUM ANALYZE, as autovacuum does within a minute or so
   * of it (until then plans rest on stale statistics and index-only scans visit the heap).
   */
  settle(): Promise<void>;
  /** A bare read of every private point, oldest first; returns the rows read. */
  iterate(): Promise<number>;
  /** The tile made by PostGIS (bench/postgis-tiles.ts), on PostgreSQL where PostGIS is installed. */
  postgis?: ((z: number, x: number, y: number) => Promise<number>) | undefined;
  close(): Promise<void>;
}

const TILE_ROWS =
  'select time, lat, lon from locations where user_id = $1 and lat >= $2 and lat <= $3 and lon >= $4 and lon <= $5';
const ALL_ROWS = "select * from locations where user_id = $1 and scope = 'private' order by time, id";
/** The 20,000 points written through the triggers after seeding lie a year after the history. */
const LATER_MS = 366 * 86_400_000 * 11;

async function sqliteStore(): Promise<Store> {
  // BENCH_HISTORY_DB keeps the seeded database at that path, and a later run with the same
  // path and BENCH_POINTS measures it again without seeding (ten million points take minutes).
  const kept = process.env.BENCH_HISTORY_DB;
  const path = kept ?? join(work, 'history.db');
  let userId: string;
  if (kept && existsSync(kept)) {
    const db = new SQLite(kept, { readonly: true });
    userId = (db.prepare("select id from users where username = 'traveller'").get() as { id: string }).id;
    db.close();
    log(`reusing the history seeded at ${kept}`);
  } else {
    // Seeded as an existing install would be: the rows first (without the triggers of 0012),
    // then migration 0012 backfills the cells and marks every quarter hour for the statistics.
    const seeded = await seedHistory(path, POINTS);
    userId = seeded.userId;
    logSeeding(seeded);
    // Writes through the triggers, beside the same writes without (seeded above).
    logLater(seedPoints(path, 20_000, { total: POINTS, existing: userId }).seconds);
  }
  const bare = new SQLite(path, { readonly: true });
  const rows = bare.prepare(TILE_ROWS.replace(/\$\d/g, '?'));
  const all = bare.prepare(ALL_ROWS.replace(/\$\d/g, '?'));
  return {
    target: path,
    userId,
    settle: async () => {},
    tileRows: async (b) => void rows.all(userId, b.minLat, b.maxLat, b.minLon, b.maxLon),
    iterate: async () => {
      let count = 0;
      for (const _row of all.iterate(userId)) count += 1;
      return count;
    },
    close: async () => void bare.close(),
  };
}

async function postgresStore(serverUrl: string): Promise<Store> {
  // BENCH_HISTORY_DB names a database to keep (and to reuse when it exists).
  const kept = process.env.BENCH_HISTORY_DB;
  const name = kept ?? `waypost_history_${Date.now()}_${process.pid}`;
  const reused = kept !== undefined && (await databaseExists(serverUrl, kept));
  const url = reused ? databaseUrl(serverUrl, name) : await createDatabase(serverUrl, name);
  let userId: string;
  if (reused) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    userId = (await client.query<{ id: string }>("select id from users where username = 'traveller'")).rows[0]!.id;
    await client.end();
    log(`reusing the history seeded in database ${name}`);
  } else {
    const seeded = await seedHistoryPostgres(url, POINTS);
    userId = seeded.userId;
    logSeeding(seeded);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (!reused) {
    const seconds = await seedPointsPostgres(client, userId, 20_000, { total: POINTS, shiftMs: LATER_MS, batch: 1000 });
    logLater(seconds, ', 1,000 a statement');
  }
  let postgis: Store['postgis'];
  if (process.env.BENCH_POSTGIS === '0') log('PostGIS: left out (BENCH_POSTGIS=0)');
  else if (!(await postgisAvailable(client))) log('PostGIS: not installed on this server, left out');
  else {
    const seconds = await preparePostgis(client, userId);
    log(`PostGIS: the points copied into postgis_points with a GiST index: ${seconds.toFixed(1)} s`);
    postgis = (z, x, y) => postgisTile(client, z, x, y);
  }
  return {
    target: url,
    userId,
    settle: async () => void (await client.query('vacuum analyze')),
    tileRows: async (b) =>
      void (await client.query({
        name: 'tile_rows',
        text: TILE_ROWS,
        values: [userId, b.minLat, b.maxLat, b.minLon, b.maxLon],
      })),
    iterate: async () => {
      // A cursor, as the fastest way pg reads a large result without holding it all.
      let count = 0;
      await client.query('begin');
      await client.query({ text: `declare every_point no scroll cursor for ${ALL_ROWS}`, values: [userId] });
      for (;;) {
        const { rowCount } = await client.query('fetch 10000 from every_point');
        count += rowCount ?? 0;
        if (rowCount !== 10_000) break;
      }
      await client.query('commit');
      return count;
    },
    postgis,
    close: async () => {
      await client.end();
      if (!kept) await dropDatabase(serverUrl, name);
    },
  };
}

function logSeeding({ seedSeconds, migrationSeconds }: { seedSeconds: number; migrationSeconds: number }) {
  log(`seeded before migration 0012 (no triggers): ${Math.round(POINTS / seedSeconds).toLocaleString('en')} points/s`);
  log(`migration 0012 and later over them (cells, marks, position index): ${migrationSeconds.toFixed(1)} s`);
}

function logLater(seconds: number, how = '') {
  log(
    `20,000 more points through the triggers${how}: ${Math.round(20_000 / seconds).toLocaleString('en')} points/s ` +
      `(without triggers above)`,
  );
}

async function main() {
  log(
    `# Location history, ${POINTS.toLocaleString('en')} points, ${DAYS} days, ${POSTGRES ? 'PostgreSQL' : 'SQLite'}, ${ROUNDS} rounds`,
  );
  const store = POSTGRES ? await postgresStore(POSTGRES) : await sqliteStore();
  stores.push(store);
  await store.settle();
  const { userId } = store;
  const server = await startServer(store.target, userId);
  const base = `http://127.0.0.1:${server.port}`;

  // What a tile costs before any point: HTTP, the token, the version and the count of an
  // empty tile (z18 at the world's north-west corner, far from every point).
  const emptyP99: number[] = [];
  for (let i = 0; i < 100; i += 1) await timed(`${base}/locations/tiles/18/0/0.mvt`, server.token); // warm up
  for (let round = 0; round < ROUNDS; round += 1) {
    const times: number[] = [];
    for (let i = 0; i < 100; i += 1) times.push((await timed(`${base}/locations/tiles/18/0/0.mvt`, server.token)).ms);
    emptyP99.push(p99(times));
  }
  log(`empty tile z18 (100 x ${ROUNDS}): p99 ${spread(emptyP99)} ms`);

  // The tiles: the home tile and the tiles of 20 points spread over the history, per zoom.
  const sample: { lat: number; lon: number }[] = [];
  let index = 0;
  for (const point of history(POINTS)) if (index++ % Math.floor(POINTS / 20) === 0) sample.push(point);
  const stats = {
    tile: new Map<number, { p99: number[]; base: number[]; size: number; postgis: number[]; postgisSize: number }>(),
  };
  for (const z of ZOOMS) {
    const tiles = [
      ...new Set([tileOf(52.52, 13.4, z), ...sample.map((p) => tileOf(p.lat, p.lon, z))].map((t) => t.join('/'))),
    ];
    const entry = { p99: [] as number[], base: [] as number[], size: 0, postgis: [] as number[], postgisSize: 0 };
    stats.tile.set(z, entry);
    const coordinates = tiles.map((key) => key.split('/').map(Number) as [number, number]);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Each way of making the tiles in a phase of its own, after an untimed pass over them:
      // the bare baseline reads up to every point, pushing out of the caches what the tiles
      // read, which a server answering tiles keeps.
      const times: number[] = [];
      for (const [x, y] of coordinates) await timed(`${base}/locations/tiles/${z}/${x}/${y}.mvt`, server.token);
      for (const [x, y] of coordinates) {
        for (let i = 0; i < TILE_REPEAT; i += 1) {
          const answer = await timed(`${base}/locations/tiles/${z}/${x}/${y}.mvt`, server.token);
          if (answer.status !== 200) throw new Error(`tile ${z}/${x}/${y}: ${answer.status}`);
          times.push(answer.ms);
          entry.size = Math.max(entry.size, answer.bytes);
        }
      }
      const postgisTimes: number[] = [];
      if (store.postgis) {
        // Untimed pass only where a tile is a small read (below, PostGIS sums every point).
        if (z >= POINTS_MIN_ZOOM) for (const [x, y] of coordinates) await store.postgis(z, x, y);
        for (const [x, y] of coordinates) {
          for (let i = 0; i < POSTGIS_REPEAT; i += 1) {
            const begin = performance.now();
            entry.postgisSize = Math.max(entry.postgisSize, await store.postgis(z, x, y));
            postgisTimes.push(performance.now() - begin);
          }
        }
      }
      const baseTimes: number[] = [];
      for (const [x, y] of coordinates) {
        // Once a tile a round: at ten million points one low-zoom query takes seconds.
        const begin = performance.now();
        await store.tileRows(tileBounds(z, x, y));
        baseTimes.push(performance.now() - begin);
        // Millions of rows are garbage now: collected here, not during a later timing.
        collectGarbage();
      }
      entry.p99.push(p99(times));
      entry.base.push(p99(baseTimes));
      if (store.postgis) entry.postgis.push(p99(postgisTimes));
    }
    const postgis = store.postgis
      ? `PostGIS (x ${POSTGIS_REPEAT}) p99 ${spread(entry.postgis)} ms, largest ${(entry.postgisSize / 1024).toFixed(1)} KB; `
      : '';
    log(
      `tile z${z} (${tiles.length} tiles x ${TILE_REPEAT} x ${ROUNDS}): p99 ${spread(entry.p99)} ms, largest ${(entry.size / 1024).toFixed(1)} KB; ` +
        `${postgis}baseline rows p99 ${spread(entry.base)} ms`,
    );
  }

  // Statistics per month over the ten years.
  const first = await timed(`${base}/locations/stats?group_by=month`, server.token);
  log(`stats first call (brings ${DAYS} days of quarter hours up to date): ${first.ms.toFixed(0)} ms`);
  await store.settle();
  const statsP99: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const times: number[] = [];
    for (let i = 0; i < 50; i += 1)
      times.push((await timed(`${base}/locations/stats?group_by=month`, server.token)).ms);
    statsP99.push(p99(times));
  }
  log(`stats per month over ten years: p99 ${spread(statsP99)} ms`);

  // The streamed download, beside a bare iterate of the same rows, from a server started for
  // it: the tiles above grew the first server's heap, and a server's first download is when
  // its memory grows.
  const downloader = await startServer(store.target, userId);
  const rates: number[] = [];
  const firstBytes: number[] = [];
  const growth: number[] = [];
  const bareRates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const before = rssMb(downloader.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(downloader.pid))), 20);
    const begin = performance.now();
    const response = await fetch(`http://127.0.0.1:${downloader.port}/locations/private?all=true&format=geojson`, {
      headers: { authorization: `Bearer ${downloader.token}` },
    });
    let bytes = 0;
    let firstByte = 0;
    for await (const chunk of response.body!) {
      if (firstByte === 0) firstByte = performance.now() - begin;
      bytes += (chunk as Uint8Array).byteLength;
    }
    const secondsTaken = (performance.now() - begin) / 1000;
    clearInterval(sampler);
    firstBytes.push(firstByte);
    growth.push(peak - before);
    const bareBegin = performance.now();
    const rows = await store.iterate();
    bareRates.push(rows / ((performance.now() - bareBegin) / 1000));
    rates.push(rows / secondsTaken);
    if (round === 0) log(`download: ${(bytes / 1e6).toFixed(0)} MB of GeoJSON`);
  }
  const k = (values: number[]) => values.map((v) => v / 1000);
  log(
    `download GeoJSON: ${spread(k(rates), 0)} k points/s, first byte ${spread(firstBytes)} ms, ` +
      `server RSS growth ${spread(growth)} MB (by round: ${growth.map((mb) => mb.toFixed(1)).join(', ')}); ` +
      `baseline bare iterate ${spread(k(bareRates), 0)} k rows/s`,
  );
}

try {
  await main();
} finally {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  for (const store of stores) await store.close();
  rmSync(work, { recursive: true, force: true });
}
