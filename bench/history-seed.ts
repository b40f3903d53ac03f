// The location history the history benchmarks share (bench/history.ts, bench/map-browser.ts):
// one person's ten years of tracker points, written straight through better-sqlite3 as an
// existing install would hold them, before the history migration, which then backfills its
// cells and marks (docs/history.md).
import { Migrator } from 'kysely/migration';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { newId } from '../src/lib/ids.ts';
import { openBare, seedUser } from './seed.ts';

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
  const before = openDatabase({ sqlitePath: path });
  await new Migrator({ db: before.db, provider: { getMigrations: async () => migrations } }).migrateTo(
    '0006_item_counters',
  );
  await before.close();
  const { userId, seconds } = seedPoints(path, points);
  const migrating = openDatabase({ sqlitePath: path });
  const begin = performance.now();
  await migrateToLatest(migrating);
  await migrating.close();
  return { userId, seedSeconds: seconds, migrationSeconds: (performance.now() - begin) / 1000 };
}
