// `npm run bench:insert-cost`: what each part of the locations schema costs a stored point on
// SQLite (docs/history.md, BENCHMARKS.md). BENCH_INSERT_POINTS points (default 200,000) of the
// history generator, inserted bare (one prepared statement, one transaction of 1,000, WAL,
// synchronous=FULL as Waypost opens SQLite) into a fresh migrated database, and again with
// parts of the schema taken away:
//   the whole schema, the cell log folded at the end of every transaction as Waypost's writers
//     fold it (src/locations/cells.repo.ts);
//   without the history triggers (cells, quarter-hour marks, version: migrations 0012, 0023);
//   without them and the position index the high-zoom tiles and boxes read;
//   the table with only its primary key and the unique (user, time, lat, lon) index.
// BENCH_ROUNDS rounds (default 3), the variants in turn; medians and spread.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newId } from '../src/lib/ids.ts';
import { FOLD_SQL } from '../src/locations/cells.repo.ts';
import { history, type HistoryPoint } from './history-seed.ts';
import { openBare, seedUser } from './seed.ts';

const POINTS = Number(process.env.BENCH_INSERT_POINTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const HISTORY = ['drop trigger locations_history_insert'];
const VARIANTS: [string, string[]][] = [
  ['the whole schema', []],
  ['without the history triggers', HISTORY],
  ['without them and the position index', [...HISTORY, 'drop index locations_position_cells']],
  [
    'primary key and the unique point index only',
    [
      ...HISTORY,
      'drop trigger locations_counters_insert',
      ...['position_cells', 'scope_time', 'time', 'import', 'hidden'].map((name) => `drop index locations_${name}`),
    ],
  ],
];

async function pointsPerSecond(points: HistoryPoint[], drops: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'waypost-insert-cost-'));
  try {
    const path = join(dir, 'waypost.db');
    const database = openDatabase({ sqlitePath: path });
    await migrateToLatest(database);
    await database.close();
    const db = openBare(path);
    const userId = seedUser(db, 'walker');
    for (const statement of drops) db.exec(statement);
    const insert = db.prepare(
      `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
       values (?, ?, 'private', ?, ?, ?, ?, null, 5, null, null, null)`,
    );
    const fold = drops.length === 0 ? FOLD_SQL.map((statement) => db.prepare(statement)) : [];
    const chunk = db.transaction((rows: HistoryPoint[]) => {
      for (const row of rows) insert.run(userId, newId(), row.time, row.time, row.lat, row.lon);
      for (const statement of fold) statement.run();
    });
    const begin = performance.now();
    for (let i = 0; i < points.length; i += 1000) chunk(points.slice(i, i + 1000));
    const seconds = (performance.now() - begin) / 1000;
    db.close();
    return points.length / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const points = [...history(POINTS)];
const rates = new Map<string, number[]>(VARIANTS.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, drops] of VARIANTS) rates.get(name)!.push(await pointsPerSecond(points, drops));
}
process.stdout.write(`# ${POINTS.toLocaleString('en')} points, SQLite, ${ROUNDS} rounds\n`);
process.stdout.write('| Schema | points/s, median (min-max) | µs a point |\n|---|---|---|\n');
for (const [name, values] of rates) {
  const k = (value: number) => Math.round(value).toLocaleString('en');
  process.stdout.write(
    `| ${name} | ${k(median(values))} (${k(Math.min(...values))}-${k(Math.max(...values))}) | ${(1e6 / median(values)).toFixed(1)} |\n`,
  );
}
