// The location history the history benchmarks share (bench/history.ts, bench/map-browser.ts):
// one person's ten years of tracker points, written straight through better-sqlite3 (or pg) as
// an existing install would hold them, before the history migration, which then backfills its
// cells and marks (docs/history.md).
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { newId } from '../src/lib/ids.ts';
import { openBare, seedUser } from './seed.ts';
import { seedUserPostgres } from './seed-pg.ts';

export const DAYS = 3650;
export const START = Date.UTC(2015, 0, 1);

export interface HistoryPoint {
  time: number;
  lat: number;
  lon: number;
}

/** A tracker's ten years: most days around home, one day in 40 somewhere else, a point every 5 s. */
export function* history(total: number): Generator<HistoryPoint> {
  let state = 42;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const perDay = Math.floor(total / DAYS);
  let left = total;
  for (let day = 0; day < DAYS && left > 0; day += 1) {
    const count = day === DAYS - 1 ? left : Math.min(left, perDay);
    left -= count;
    const away = day % 40 === 39;
    let lat = 52.52 + (away ? (random() - 0.5) * 20 : (random() - 0.5) * 0.1);
    let lon = 13.4 + (away ? (random() - 0.5) * 40 : (random() - 0.5) * 0.1);
    let heading = random() * 2 * Math.PI;
    const speed = random() < 0.3 ? 15 : 1.5; // driving or walking, m/s
    let time = START + day * 86_400_000 + 7 * 3_600_000 + Math.floor(random() * 3_600_000);
    for (let i = 0; i < count; i += 1) {
      heading += (random() - 0.5) * 0.5;
      lat += (Math.cos(heading) * speed * 5) / 111_320;
      lon += (Math.sin(heading) * speed * 5) / (111_320 * Math.cos((lat * Math.PI) / 180));
      time += 5000;
      yield { time, lat, lon };
    }
  }
}

/**
 * Writes the first `count` points of a `total`-point history as private points of a new user
 * 'traveller', or of `existing` (then a year after the history ends: distinct times).
 * One transaction per 10,000 points; `seconds` is the writing alone.
 */
export function seedPoints(
  path: string,
  count: number,
  options: { total?: number; existing?: string } = {},
): { userId: string; seconds: number } {
  const { total = count, existing } = options;
  const db = openBare(path);
  const userId = existing ?? seedUser(db, 'traveller');
  const shift = existing ? 366 * 86_400_000 * 11 : 0;
  const insert = db.prepare(
    `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
     values (?, ?, 'private', ?, ?, ?, ?, null, 5, null, null, null)`,
  );
  const chunk = db.transaction((rows: HistoryPoint[]) => {
    for (const row of rows) insert.run(userId, newId(), row.time + shift, row.time, row.lat, row.lon);
  });
  const begin = performance.now();
  let rows: HistoryPoint[] = [];
  let n = 0;
  for (const row of history(total)) {
    if (n === count) break;
    n += 1;
    rows.push(row);
    if (rows.length === 10_000) {
      chunk(rows);
      rows = [];
    }
  }
  chunk(rows);
  const seconds = (performance.now() - begin) / 1000;
  db.close();
  return { userId, seconds };
}

/**
 * A new SQLite database at `path` holding one person's `points`-point history, migrated to the
 * latest: the rows written before migration 0012 (no triggers), then the migrations, which
 * backfill the cells and mark every quarter hour for the statistics.
 */
export async function seedHistory(
  path: string,
  points: number,
): Promise<{ userId: string; seedSeconds: number; migrationSeconds: number }> {
  await migrateBeforeHistory({ sqlitePath: path });
  const { userId, seconds } = seedPoints(path, points);
  const migrating = openDatabase({ sqlitePath: path });
  const begin = performance.now();
  await migrateToLatest(migrating);
  await migrating.close();
  return { userId, seedSeconds: seconds, migrationSeconds: (performance.now() - begin) / 1000 };
}

/** Migrates the database up to the last migration before the history's (0012). */
async function migrateBeforeHistory(options: { sqlitePath: string } | { url: string }): Promise<void> {
  const before = openDatabase(options);
  await new Migrator({ db: before.db, provider: { getMigrations: async () => migrations } }).migrateTo(
    '0006_item_counters',
  );
  await before.close();
}

/**
 * Writes the first `count` points of a `total`-point history on PostgreSQL, as seedPoints does
 * on SQLite: `batch` points a statement (each its own transaction), the times shifted by
 * `shiftMs`. Returns the seconds the writing took.
 */
export async function seedPointsPostgres(
  client: pg.Client,
  userId: string,
  count: number,
  options: { total?: number; shiftMs?: number; batch?: number } = {},
): Promise<number> {
  const { total = count, shiftMs = 0, batch = 20_000 } = options;
  const insert = (ids: string[], times: number[], lats: number[], lons: number[]) =>
    client.query(
      `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
       select $1, id, 'private', time + $6::bigint, time, lat, lon, null, 5, null, null, null
       from unnest($2::text[], $3::bigint[], $4::float8[], $5::float8[]) as t(id, time, lat, lon)`,
      [userId, ids, times, lats, lons, shiftMs],
    );
  const begin = performance.now();
  let rows = { ids: [] as string[], times: [] as number[], lats: [] as number[], lons: [] as number[] };
  let n = 0;
  for (const row of history(total)) {
    if (n === count) break;
    n += 1;
    rows.ids.push(newId());
    rows.times.push(row.time);
    rows.lats.push(row.lat);
    rows.lons.push(row.lon);
    if (rows.ids.length === batch) {
      await insert(rows.ids, rows.times, rows.lats, rows.lons);
      rows = { ids: [], times: [], lats: [], lons: [] };
    }
  }
  if (rows.ids.length > 0) await insert(rows.ids, rows.times, rows.lats, rows.lons);
  return (performance.now() - begin) / 1000;
}

/**
 * The same history on PostgreSQL, in the empty database at `url`: the rows written before
 * migration 0012 (no triggers), then the migrations, then ANALYZE (as autovacuum would in time).
 */
export async function seedHistoryPostgres(
  url: string,
  points: number,
): Promise<{ userId: string; seedSeconds: number; migrationSeconds: number }> {
  await migrateBeforeHistory({ url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const userId = newId();
    await seedUserPostgres(client, userId, 'traveller');
    const seedSeconds = await seedPointsPostgres(client, userId, points);
    const migrating = openDatabase({ url });
    const begin = performance.now();
    await migrateToLatest(migrating);
    await migrating.close();
    await client.query('analyze');
    return { userId, seedSeconds, migrationSeconds: (performance.now() - begin) / 1000 };
  } finally {
    await client.end();
  }
}
