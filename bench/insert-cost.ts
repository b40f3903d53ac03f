// `npm run bench:insert-cost`: what each part of the locations schema costs a stored point on
// SQLite (docs/history.md, BENCHMARKS.md). BENCH_INSERT_POINTS points (default 200,000) of the
// history generator, inserted bare (one prepared statement, one transaction of 1,000, WAL,
// synchronous=FULL as Waypost opens SQLite) into a fresh migrated database, and again with
// parts of the schema taken away:
//   the whole schema, the cell log folded at the end of every transaction as Waypost's writers
//     fold it (src/locations/cells.repo.ts);
//   without the history triggers (cells, quarter-hour marks, version: migrations 0012, 0023);
//   without any trigger: the indexes alone (the counters of public items are a trigger too);
//   without the history triggers and the position index the high-zoom tiles and boxes read;
//   the table with only its primary key and the unique (user, time, lat, lon) index.
// BENCH_ROUNDS rounds (default 3), the variants in turn; medians and spread.
// With BENCH_DATABASE_URL=postgres://user@host:port the same points and variants on PostgreSQL,
// each into a fresh migrated database, written the fastest way PostgreSQL has: `COPY` from its
// own client (psql's `\copy`, from Debian's postgresql-client), a file of 1,000 points a
// transaction, with the import worker's `synchronous_commit = off` and nothing to skip (no point
// is stored twice). What that stores is the most any way of writing a point into that schema
// could store on the machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newId } from '../src/lib/ids.ts';
import { FOLD_SQL } from '../src/locations/cells.repo.ts';
import { median } from './harness.ts';
import { history, type HistoryPoint } from './history-seed.ts';
import { openBare, seedUser } from './seed.ts';
import pg from 'pg';
import { freshPostgres, seedUserPostgres } from './seed-pg.ts';

const POINTS = Number(process.env.BENCH_INSERT_POINTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POSTGRES = process.env.BENCH_DATABASE_URL;
const HISTORY = ['drop trigger locations_history_insert'];
const VARIANTS: [string, string[]][] = [
  ['the whole schema', []],
  ['without the history triggers', HISTORY],
  ['without any trigger (the indexes only)', [...HISTORY, 'drop trigger locations_counters_insert']],
  ['without the history triggers and the position index', [...HISTORY, 'drop index locations_position_cells']],
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

/** The same on PostgreSQL: `drops` written for SQLite, triggers named on their table. */
async function pointsPerSecondPostgres(points: HistoryPoint[], drops: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'waypost-insert-cost-'));
  const { url, drop } = await freshPostgres(POSTGRES!);
  try {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await seedUserPostgres(client, 'walker', 'walker');
    for (const statement of drops)
      await client.query(statement.startsWith('drop trigger') ? `${statement} on locations` : statement);
    await client.end();
    const lines = ['set synchronous_commit = off;'];
    for (let i = 0; i < points.length; i += 1000) {
      const file = join(dir, `${i}.csv`);
      const rows = points
        .slice(i, i + 1000)
        .map((row) => `walker,${newId()},private,${row.time},${row.time},${row.lat},${row.lon},,5,,,`);
      writeFileSync(file, `${rows.join('\n')}\n`);
      lines.push(
        'begin;',
        `\\copy locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source) from '${file}' csv`,
        'commit;',
      );
    }
    const script = join(dir, 'copy.sql');
    writeFileSync(script, `${lines.join('\n')}\n`);
    const begin = performance.now();
    await new Promise<void>((resolve, reject) => {
      const psql = spawn('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-f', script, url], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      psql.on('error', reject);
      psql.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`psql exited with ${code}`))));
    });
    return points.length / ((performance.now() - begin) / 1000);
  } finally {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const points = [...history(POINTS)];
const rates = new Map<string, number[]>(VARIANTS.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, drops] of VARIANTS) {
    rates.get(name)!.push(await (POSTGRES ? pointsPerSecondPostgres : pointsPerSecond)(points, drops));
  }
}
process.stdout.write(
  `# ${POINTS.toLocaleString('en')} points, ${POSTGRES ? 'PostgreSQL (COPY)' : 'SQLite'}, ${ROUNDS} rounds\n`,
);
process.stdout.write('| Schema | points/s, median (min-max) | µs a point |\n|---|---|---|\n');
for (const [name, values] of rates) {
  const k = (value: number) => Math.round(value).toLocaleString('en');
  process.stdout.write(
    `| ${name} | ${k(median(values))} (${k(Math.min(...values))}-${k(Math.max(...values))}) | ${(1e6 / median(values)).toFixed(1)} |\n`,
  );
}
