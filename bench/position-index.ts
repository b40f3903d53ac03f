// `npm run bench:position-index`: what the index that high-zoom tiles and boxes read costs a
// tracker's write, and what it buys the reads, on SQLite (docs/history.md "Tiles"). One
// person's ten-year history of BENCH_POINTS points (default 1,000,000, bench/history-seed.ts),
// migrated, then copied once per variant of that index:
//   none      no position index: the floor for writing, and what a box costs without one;
//   rows64    migration 0025's: rows of 1/64 degree of latitude, then longitude, latitude, time;
//   cellsN    cells of 1/N degree (N = 64, 256, 1024), then time: migration 0051's is cells256.
// For each: the points of the tiles of zooms 12 to 18 round the history's points (the query a
// tile runs, src/locations/points.repo.ts `pointsInBox`, with the box written for that index:
// src/lib/box.repo.ts for cells256), median and p99 of one read a tile; then BENCH_BATCHES
// durable batches of 1,000 new points of the same walks through `storePoints` (as
// `POST /locations`), the median time a batch after the first 20, and the log (WAL) it wrote.
// BENCH_ROUNDS rounds (default 3), the variants in turn; medians of the rounds and the spread.
import SQLite from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Expression, type SqlBool } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import { tileBounds } from '../src/history/geo.ts';
import type { Box } from '../src/lib/box.ts';
import { boxFilter } from '../src/lib/box.repo.ts';
import { storePoints } from '../src/locations/locations.logic.ts';
import type { PointInput } from '../src/locations/point.ts';
import { history, seedHistory, type HistoryPoint } from './history-seed.ts';

const POINTS = Number(process.env.BENCH_POINTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 150);
const ZOOMS = [12, 14, 16, 18];
const work = mkdtempSync(join(tmpdir(), 'waypost-position-index-'));

/** Each variant: the index it builds in place of migration 0051's, and its box filter. */
interface Variant {
  name: string;
  index?: string;
  filter: (box: Box) => Expression<SqlBool>;
}

/** The exact box as every variant ends its filter with (tiles never cross the antimeridian). */
const exact = (box: Box) =>
  sql<SqlBool>`lat >= ${box.minLat} and lat <= ${box.maxLat} and lon >= ${box.minLon} and lon <= ${box.maxLon}`;

/** The rows of a box, listed for up to 256, a range beyond. */
function rows(expression: string, first: number, last: number): Expression<SqlBool> {
  if (last - first >= 256) return sql<SqlBool>`${sql.raw(expression)} between ${first} and ${last}`;
  const listed = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  return sql<SqlBool>`${sql.raw(expression)} in (${sql.join(listed)})`;
}

function cells(n: number): Variant {
  return {
    name: `cells${n}`,
    index: `(user_id, (floor(lat * ${n})), (floor(lon * ${n})), time, lat, lon, scope, hidden)`,
    filter: (box) => {
      const cell = (degrees: number) => Math.floor(degrees * n);
      return sql<SqlBool>`${rows(`floor(lat * ${n})`, cell(box.minLat), cell(box.maxLat))}
        and floor(lon * ${sql.lit(n)}) between ${cell(box.minLon)} and ${cell(box.maxLon)} and ${exact(box)}`;
    },
  };
}

const VARIANTS: Variant[] = [
  { name: 'none', filter: exact },
  {
    name: 'rows64',
    index: '(user_id, (floor(lat * 64)), lon, lat, time, scope)',
    filter: (box) =>
      sql<SqlBool>`${rows('floor(lat * 64)', Math.floor(box.minLat * 64), Math.floor(box.maxLat * 64))}
        and ${exact(box)}`,
  },
  cells(64),
  { ...cells(256), index: undefined, filter: boxFilter },
  cells(1024),
];

const log = (line: string) => process.stdout.write(`${line}\n`);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const p99 = (values: number[]) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!;
const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

function tileOf(lat: number, lon: number, z: number): [number, number] {
  const radians = (lat * Math.PI) / 180;
  const y = (1 - Math.log(Math.tan(radians) + 1 / Math.cos(radians)) / Math.PI) / 2;
  return [Math.floor(((lon + 180) / 360) * 2 ** z), Math.floor(y * 2 ** z)];
}

/** The tiles of each zoom that hold one of every 5,003rd point of the history. */
function tilesByZoom(): Map<number, Box[]> {
  const sample = [...history(POINTS)].filter((_, i) => i % 5003 === 0);
  return new Map(
    ZOOMS.map((z) => {
      const keys = new Set(sample.map((point) => tileOf(point.lat, point.lon, z).join('/')));
      return [z, [...keys].map((key) => tileBounds(z, ...(key.split('/').map(Number) as [number, number])))];
    }),
  );
}

/** Batches of 1,000 points that go on from the history's last walks, eleven years later. */
function newBatches(): PointInput[][] {
  const points = history(POINTS + BATCHES * 1000);
  for (let i = 0; i < POINTS; i += 1) points.next();
  return Array.from({ length: BATCHES }, () =>
    Array.from({ length: 1000 }, () => {
      const point = points.next().value as HistoryPoint;
      return {
        timeMs: point.time + 11 * 366 * 86_400_000,
        lat: point.lat,
        lon: point.lon,
        alt: null,
        accuracy: 5,
        speed: null,
        heading: null,
        scope: 'private',
      } satisfies PointInput;
    }),
  );
}

interface Measure {
  reads: Map<number, { median: number; p99: number }>;
  batchMs: number;
  walKiB: number;
}

async function measure(base: string, variant: Variant, tiles: Map<number, Box[]>): Promise<Measure> {
  const path = join(work, `${variant.name}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  copyFileSync(base, path);
  const bare = new SQLite(path);
  if (variant.name !== 'cells256') {
    bare.exec('drop index locations_position_cells');
    if (variant.index) bare.exec(`create index locations_position on locations ${variant.index}`);
  }
  bare.exec('analyze');
  const userId = (bare.prepare("select id from users where username = 'traveller'").get() as { id: string }).id;
  bare.close();
  const database = openDatabase({ sqlitePath: path });
  const reads = new Map<number, { median: number; p99: number }>();
  for (const [z, boxes] of tiles) {
    const times: number[] = [];
    for (const pass of [0, 1]) {
      for (const box of boxes) {
        const begin = performance.now();
        await sql`select time, lat, lon from locations where user_id = ${userId} and ${variant.filter(box)}`.execute(
          database.db,
        );
        if (pass === 1) times.push(performance.now() - begin);
      }
    }
    reads.set(z, { median: median(times), p99: p99(times) });
  }
  // The log a batch writes: every page it changes, once per commit, with no checkpoint between.
  await sql`pragma wal_autocheckpoint = 0`.execute(database.db);
  await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  const times: number[] = [];
  for (const batch of newBatches()) {
    const begin = performance.now();
    await storePoints(database.db, userId, batch, null);
    times.push(performance.now() - begin);
  }
  const walKiB = statSync(`${path}-wal`).size / 1024 / BATCHES;
  await database.close();
  rmSync(path, { force: true });
  return { reads, batchMs: median(times.slice(20)), walKiB };
}

async function main() {
  log(`# The position index, ${POINTS.toLocaleString('en')} points of history, ${ROUNDS} rounds, SQLite`);
  const base = join(work, 'base.db');
  await seedHistory(base, POINTS);
  const tiles = tilesByZoom();
  const results = new Map<string, Measure[]>(VARIANTS.map((variant) => [variant.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const variant of VARIANTS) results.get(variant.name)!.push(await measure(base, variant, tiles));
  }
  log(`tiles a zoom: ${ZOOMS.map((z) => `z${z} ${tiles.get(z)!.length}`).join(', ')}`);
  for (const variant of VARIANTS) {
    const rounds = results.get(variant.name)!;
    log(`${variant.name}:`);
    log(
      `  a durable batch of 1,000 points: ${spread(
        rounds.map((r) => r.batchMs),
        1,
      )} ms, log ${spread(
        rounds.map((r) => r.walKiB),
        0,
      )} KiB`,
    );
    for (const z of ZOOMS) {
      const of = rounds.map((r) => r.reads.get(z)!);
      log(
        `  tile z${z} points: median ${spread(
          of.map((r) => r.median),
          2,
        )} ms, p99 ${spread(
          of.map((r) => r.p99),
          2,
        )} ms`,
      );
    }
  }
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
