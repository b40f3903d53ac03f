// `npm run bench:visits-db`: visits and trips in the database (docs/history.md "Visits and
// trips"), on SQLite and, with BENCH_PG_URL (an empty database), on PostgreSQL:
//
// - the first detection over a whole history (BENCH_POINTS points, ten years, bench/history-seed.ts)
//   beside its floor, a bare query reading the same points in time order; time and peak RSS;
// - an incremental update after a tracker batch of 100 points (BENCH_ROUNDS rounds);
// - a day's visits and trips read through the logic, beside a bare query of the same rows (p99
//   of BENCH_READS days);
// - a year in review, beside a bare aggregation of the year's trips and visits.
// BENCH_SQLITE=0 leaves SQLite out.
// Numbers are printed and recorded by hand in BENCHMARKS.md; nothing here asserts them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/db/database.ts';
import { refreshHistory } from '../src/history/refresh.ts';
import { cursorsFor } from '../src/core/cursors.ts';
import { PERMISSIONS, type Permission } from '../src/core/permissions.ts';
import { locationSummary } from '../src/visits/summary.logic.ts';
import { listTrips, listVisits } from '../src/visits/visits.logic.ts';
import { newIds } from '../src/lib/ids.ts';
import { log, median, spread } from './harness.ts';
import { DAYS, seedHistory, seedHistoryPostgres, START } from './history-seed.ts';

const POINTS = Number(process.env.BENCH_POINTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const READS = Number(process.env.BENCH_READS ?? 200);
const DAY = 86_400_000;

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const begin = performance.now();
  const result = await work();
  return [result, performance.now() - begin];
}

/** Peak RSS (MB) while `work` runs, sampled every 50 ms. */
async function peakRss<T>(work: () => Promise<T>): Promise<[T, number]> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const result = await work();
    return [result, Math.max(peak, process.memoryUsage().rss) / 1e6];
  } finally {
    clearInterval(timer);
  }
}

async function run(label: string, database: Database, userId: string) {
  const { db } = database;
  const auth = {
    userId,
    username: 'traveller',
    clientId: 'bench',
    grantId: '',
    expiresAt: Infinity,
    permissions: new Set(Object.keys(PERMISSIONS) as Permission[]),
  };
  const cursors = cursorsFor(Buffer.alloc(32, 1));
  const before = process.memoryUsage().rss / 1e6;

  // The floor of a first detection: every point read once, in time order, nothing else.
  const [, bareMs] = await timed(async () => {
    let count = 0;
    let after = -Number.MAX_SAFE_INTEGER;
    for (;;) {
      const { rows } = await sql<{ time: number }>`select time, lat, lon, accuracy, speed from locations
        where user_id = ${userId} and time > ${after} order by time limit 10000`.execute(db);
      count += rows.length;
      if (rows.length < 10000) break;
      after = Number(rows.at(-1)!.time);
    }
    return count;
  });
  const [[, fullMs], peak] = await peakRss(() => timed(() => refreshHistory(db, userId, Date.now())));
  const counts = await sql<{ visits: number; trips: number }>`select
    (select count(*) from visits where user_id = ${userId}) as visits,
    (select count(*) from trips where user_id = ${userId}) as trips`.execute(db);
  log(
    `${label}: first detection of ${POINTS} points ${(fullMs / 1000).toFixed(1)} s (bare read of the points ` +
      `${(bareMs / 1000).toFixed(1)} s), peak RSS ${peak.toFixed(0)} MB (${before.toFixed(0)} MB before); ` +
      `${counts.rows[0]!.visits} visits, ${counts.rows[0]!.trips} trips`,
  );

  // A tracker batch of 100 points, 10 s apart, after the last day, then the refresh it causes.
  const increments: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const at = START + (DAYS + round) * DAY + 9 * 3_600_000;
    const ids = newIds(100);
    await db
      .insertInto('locations')
      .values(
        ids.map((id, i) => ({
          user_id: userId,
          id,
          scope: 'private' as const,
          time: at + i * 10_000,
          created_at: at,
          lat: 52.52 + i * 0.0001,
          lon: 13.4,
          alt: null,
          accuracy: 10,
          speed: 1.4,
          heading: null,
          source: null,
        })),
      )
      .execute();
    const [, ms] = await timed(() => refreshHistory(db, userId, Date.now()));
    increments.push(ms);
  }
  log(
    `${label}: incremental update after 100 points: median ${median(increments).toFixed(1)} ms (${spread(increments, 1)})`,
  );

  // A day's visits and trips: the logic beside a bare query of the same rows.
  const logic: number[] = [];
  const bare: number[] = [];
  let state = 7;
  for (let i = 0; i < READS; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const start = START + Math.floor((state / 2 ** 31) * DAYS) * DAY;
    const query = { count: 1000, order: 'asc' as const, since_time: start / 1000, until_time: (start + DAY) / 1000 };
    const [, ours] = await timed(async () => {
      await listVisits(db, auth, query, cursors);
      await listTrips(db, auth, query, cursors);
    });
    const [, floor] = await timed(async () => {
      await sql`select * from visits where user_id = ${userId} and start_time < ${start + DAY} and end_time > ${start}
        order by start_time`.execute(db);
      await sql`select * from trips where user_id = ${userId} and start_time < ${start + DAY} and end_time > ${start}
        order by start_time`.execute(db);
    });
    logic.push(ours);
    bare.push(floor);
  }
  log(
    `${label}: a day's visits and trips: p99 ${percentile(logic, 0.99).toFixed(2)} ms, median ` +
      `${median(logic).toFixed(2)} ms (bare queries: p99 ${percentile(bare, 0.99).toFixed(2)} ms, median ${median(bare).toFixed(2)} ms)`,
  );

  // A year in review for each of the ten years.
  const years: number[] = [];
  const floors: number[] = [];
  for (let year = 2015; year < 2025; year += 1) {
    const [, ours] = await timed(() => locationSummary(db, auth, { year }));
    const since = Date.UTC(year, 0, 1);
    const until = Date.UTC(year + 1, 0, 1);
    const [, floor] = await timed(async () => {
      await sql`select mode, sum(distance_m) from trips where user_id = ${userId} and start_time < ${until}
        and end_time > ${since} group by mode`.execute(db);
      await sql`select place_id, count(*), sum(end_time - start_time) from visits where user_id = ${userId}
        and start_time < ${until} and end_time > ${since} group by place_id`.execute(db);
    });
    years.push(ours);
    floors.push(floor);
  }
  log(
    `${label}: a year in review: median ${median(years).toFixed(1)} ms (${spread(years, 1)}), bare aggregation ` +
      `median ${median(floors).toFixed(1)} ms (${spread(floors, 1)})`,
  );
}

const work = mkdtempSync(join(tmpdir(), 'waypost-visits-'));
try {
  if (process.env.BENCH_SQLITE !== '0') {
    const path = join(work, 'history.db');
    log(`seeding ${POINTS} points on SQLite...`);
    const seeded = await seedHistory(path, POINTS);
    const database = openDatabase({ sqlitePath: path });
    await run('SQLite', database, seeded.userId);
    await database.close();
  }
  if (process.env.BENCH_PG_URL) {
    log(`seeding ${POINTS} points on PostgreSQL...`);
    const pg = await seedHistoryPostgres(process.env.BENCH_PG_URL, POINTS);
    const pgDatabase = openDatabase({ url: process.env.BENCH_PG_URL });
    await run('PostgreSQL', pgDatabase, pg.userId);
    await pgDatabase.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
