// How fast an import is (docs/imports.md): a generated Google Takeout Records.json of BENCH_IMPORT_POINTS points
// (default 1,000,000, written as Takeout writes it: two-space indents, one field a line) imported
// through the import job's own path (the streaming reader, batches, checkpoints, the bulk insert,
// the import worker's connection) on SQLite, or on PostgreSQL with BENCH_DATABASE_URL (a server;
// each round gets a database of its own), with points/s and the process's peak RSS. Beside it, in
// the same run and alternating with it, two figures that are not Waypost:
// - the reader alone (read + parse, nothing stored): what parsing the file costs;
// - Waypost's store alone: the same points, no file, through the import's batch insert (what the
//   schema's indexes and the history's work cost);
// - a baseline: the fastest honest way to store the same points, a table of its own with only what
//   the work needs (an id, the point, the unique key that skips duplicates), written as bulk loads
//   are (SQLite: prepared 100-row inserts; PostgreSQL: one unnest insert a batch), in transactions
//   of the same size with the same durability as the import's (commits not waiting for the disk).
//   node bench/import.ts      (BENCH_IMPORT_POINTS, BENCH_ROUNDS (3), BENCH_IMPORT_KEEP=1 keeps the folder)
import { importFiles } from '../src/imports/imports.files.ts';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createImport } from '../src/imports/imports.logic.ts';
import { BATCH_RECORDS, runImport } from '../src/imports/imports.run.ts';
import { insertImportedPoints } from '../src/imports/imports.repo.ts';
import { PointBatch } from '../src/imports/point-batch.ts';
import { readers } from '../src/imports/readers/index.ts';
import { createReadStream } from 'node:fs';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { freshPostgres } from './seed-pg.ts';
import { IMPORT_NODE_FLAGS } from '../src/imports/imports.fork.ts';
import { newIds } from '../src/lib/ids.ts';
import { createUser } from '../src/users/users.logic.ts';

const POINTS = Number(process.env.BENCH_IMPORT_POINTS ?? 1_000_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const POSTGRES = process.env.BENCH_DATABASE_URL;
const dir = process.argv[3] ? dirname(process.argv[3]) : mkdtempSync(join(tmpdir(), 'waypost-bench-import-'));
const START = Date.UTC(2015, 0, 1);

/**
 * The path: a walk within a box of Munich (about 20 x 20 km), one fix a minute, each a step of at
 * most about 40 m from the last, turned back at the box's edges. (Until this round the points
 * hopped about the box at random, a couple of kilometres a minute, which no tracker records and
 * which made every point land on a page of the position index of its own.)
 */
const path = (() => {
  const lat = new Int32Array(POINTS);
  const lon = new Int32Array(POINTS);
  let state = 36;
  const random = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
  const [south, north, west, east] = [480_500_000, 482_300_000, 114_300_000, 117_000_000];
  let y = 481_372_000;
  let x = 115_756_000;
  for (let i = 0; i < POINTS; i++) {
    y += Math.round((random() - 0.5) * 7_000);
    x += Math.round((random() - 0.5) * 10_000);
    if (y < south || y > north) y = Math.min(north, Math.max(south, 2 * (y < south ? south : north) - y));
    if (x < west || x > east) x = Math.min(east, Math.max(west, 2 * (x < west ? west : east) - x));
    lat[i] = y;
    lon[i] = x;
  }
  return { lat, lon };
})();

/** The i-th point of the path. */
function fix(i: number) {
  return {
    latitudeE7: path.lat[i]!,
    longitudeE7: path.lon[i]!,
    accuracy: 5 + (i % 40),
    altitude: 500 + (i % 50),
    timestampMs: START + i * 60_000,
  };
}

async function writeRecords(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write('{\n  "locations": [');
  for (let i = 0; i < POINTS; i++) {
    const p = fix(i);
    const record =
      `${i === 0 ? '' : ','}{\n    "latitudeE7": ${p.latitudeE7},\n    "longitudeE7": ${p.longitudeE7},\n` +
      `    "accuracy": ${p.accuracy},\n    "altitude": ${p.altitude},\n    "verticalAccuracy": 3,\n` +
      `    "source": "WIFI",\n    "deviceTag": 1234567890,\n    "platformType": "ANDROID",\n` +
      `    "timestamp": "${new Date(p.timestampMs).toISOString()}"\n  }`;
    if (!out.write(record)) await once(out, 'drain');
  }
  out.end('\n  ]\n}\n');
  await once(out, 'finish');
}

/** CPU seconds (user + system) this process used since `from`: on a shared machine, wall time also counts other processes' turns. */
function cpuOf(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
}

/** A migrated database of the kind under test, opened as the import worker opens it. */
async function waypostDatabase(name: string) {
  if (!POSTGRES) {
    rmSync(join(dir, `${name}.db`), { force: true });
    const database = openDatabase({ sqlitePath: join(dir, `${name}.db`), relaxedCommits: true });
    await migrateToLatest(database);
    return { database, drop: async () => {} };
  }
  const { url, drop } = await freshPostgres(POSTGRES);
  return { database: openDatabase({ url, poolSize: 2, relaxedCommits: true }), drop };
}

async function importRun(file: string) {
  const { database, drop } = await waypostDatabase('import');
  const user = await createUser(
    database.db,
    { username: 'bench', password: 'bench password' },
    { log2N: 10, r: 8, p: 1 },
  );
  const files = importFiles({ dataDir: dir, storage: { kind: 'local' } });
  const created = await createImport(
    database.db,
    { userId: user.id, path: file, owned: false, filename: 'Records.json' },
    { files, now: Date.now() },
  );
  const begin = performance.now();
  const cpu = process.cpuUsage();
  const outcome = await runImport({ database, files }, created.id);
  const seconds = (performance.now() - begin) / 1000;
  const cpuSeconds = cpuOf(cpu);
  const row = await database.db
    .selectFrom('imports')
    .select(['points_stored', 'duplicates', 'skipped'])
    .where('id', '=', created.id)
    .executeTakeFirstOrThrow();
  await database.close();
  await drop();
  return { outcome, seconds, cpuSeconds, row };
}

/** The reader alone: every record parsed, none stored. */
async function readerRun(file: string) {
  const begin = performance.now();
  const cpu = process.cpuUsage();
  let points = 0;
  const bytes = createReadStream(file, { highWaterMark: 256 * 1024 }) as AsyncIterable<Uint8Array>;
  for await (const records of readers['google-records'].read({ bytes, name: 'Records.json', path: file })) {
    for (const record of records) if (record.kind === 'point') points += 1;
  }
  return { seconds: (performance.now() - begin) / 1000, cpuSeconds: cpuOf(cpu), points };
}

/** Waypost's store alone: the same points, no file, through the import's batch insert into the whole schema. */
async function storeRun() {
  const { database, drop } = await waypostDatabase('store');
  const user = await createUser(
    database.db,
    { username: 'bench', password: 'bench password' },
    { log2N: 10, r: 8, p: 1 },
  );
  const batch = new PointBatch(BATCH_RECORDS);
  const owner = { user_id: user.id, scope: 'private' as const, import_id: 'bench' };
  const begin = performance.now();
  const cpu = process.cpuUsage();
  for (let from = 0; from < POINTS; from += BATCH_RECORDS) {
    batch.clear();
    for (let i = from; i < Math.min(POINTS, from + BATCH_RECORDS); i++) {
      const p = fix(i);
      batch.push({
        timeMs: p.timestampMs,
        lat: p.latitudeE7 / 1e7,
        lon: p.longitudeE7 / 1e7,
        alt: p.altitude,
        accuracy: p.accuracy,
        speed: null,
        heading: null,
      });
    }
    const at = Date.now();
    await database.db
      .transaction()
      .execute((trx) =>
        insertImportedPoints(trx, database.sqlite, { ...owner, created_at: at }, batch, newIds(batch.length, at)),
      );
  }
  const result = { seconds: (performance.now() - begin) / 1000, cpuSeconds: cpuOf(cpu) };
  await database.close();
  await drop();
  return result;
}

const BASELINE_TABLE = `(id text primary key, user_id text not null, time bigint not null, lat double precision not null,
  lon double precision not null, alt double precision, accuracy double precision, unique (user_id, time, lat, lon))`;

/** The same points stored the fastest honest way (see the top of this file). */
async function baselineRun() {
  const begin = { at: 0, cpu: process.cpuUsage() };
  const rows = (from: number, to: number) => {
    const ids = newIds(to - from);
    return Array.from({ length: to - from }, (_, k) => {
      const p = fix(from + k);
      return [ids[k]!, 'bench', p.timestampMs, p.latitudeE7 / 1e7, p.longitudeE7 / 1e7, p.altitude, p.accuracy];
    });
  };
  if (!POSTGRES) {
    rmSync(join(dir, 'baseline.db'), { force: true });
    const sqlite = new SQLite(join(dir, 'baseline.db'));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.exec(`create table points ${BASELINE_TABLE}`);
    const insert = (n: number) =>
      sqlite.prepare(
        `insert into points values ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')} on conflict do nothing`,
      );
    const many = insert(100);
    const one = insert(1);
    const batch = sqlite.transaction((values: unknown[][]) => {
      let i = 0;
      for (; i + 100 <= values.length; i += 100) many.run(values.slice(i, i + 100).flat());
      for (; i < values.length; i++) one.run(values[i]!);
    });
    begin.at = performance.now();
    begin.cpu = process.cpuUsage();
    for (let from = 0; from < POINTS; from += BATCH_RECORDS) batch(rows(from, Math.min(POINTS, from + BATCH_RECORDS)));
    const result = { seconds: (performance.now() - begin.at) / 1000, cpuSeconds: cpuOf(begin.cpu) };
    sqlite.close();
    return result;
  }
  const { url, drop } = await freshPostgres(POSTGRES);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('set synchronous_commit = off');
  await client.query(`create table bench_points ${BASELINE_TABLE}`);
  const text = `insert into bench_points select * from unnest($1::text[], $2::text[], $3::bigint[], $4::float8[],
    $5::float8[], $6::float8[], $7::float8[]) on conflict do nothing`;
  begin.at = performance.now();
  begin.cpu = process.cpuUsage();
  for (let from = 0; from < POINTS; from += BATCH_RECORDS) {
    const values = rows(from, Math.min(POINTS, from + BATCH_RECORDS));
    await client.query('begin');
    await client.query({ name: 'bulk', text, values: values[0]!.map((_, c) => values.map((row) => row[c])) });
    await client.query('commit');
  }
  const result = { seconds: (performance.now() - begin.at) / 1000, cpuSeconds: cpuOf(begin.cpu) };
  await client.end();
  await drop();
  return result;
}

/** Runs this file again as `mode`, in a process of its own (so its peak RSS is its own); returns its JSON line. */
const rate = (seconds: number) => Math.round(POINTS / seconds);

async function inChild<T>(mode: string, file: string): Promise<T> {
  // Every mode runs with the import worker's flags (src/imports/imports.fork.ts): its young
  // generation's limit and the default heap limit, WAYPOST_IMPORT_MEMORY_MB.
  const flags = [...IMPORT_NODE_FLAGS, '--max-old-space-size=512'];
  const child = spawn(process.execPath, [...flags, fileURLToPath(import.meta.url), mode, file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number];
  if (code !== 0) throw new Error(`${mode} exited with ${code}`);
  return JSON.parse(output) as T;
}

const peakRss = () => process.resourceUsage().maxRSS * 1024;
const [mode, given] = process.argv.slice(2);
if (mode === '--import') {
  const rssBefore = process.memoryUsage().rss;
  const result = await importRun(given!);
  console.log(JSON.stringify({ ...result, rssBefore, peakRss: peakRss() }));
} else if (mode === '--store') {
  console.log(JSON.stringify({ ...(await storeRun()), peakRss: peakRss() }));
} else if (mode === '--reader') {
  console.log(JSON.stringify({ ...(await readerRun(given!)), peakRss: peakRss() }));
} else if (mode === '--baseline') {
  console.log(JSON.stringify({ ...(await baselineRun()), peakRss: peakRss() }));
} else {
  const file = join(dir, 'Records.json');
  await writeRecords(file);
  const bytes = statSync(file).size;
  type Run = { seconds: number; cpuSeconds: number; peakRss: number };
  const runs: {
    import: (Run & { outcome: string; row: { points_stored: number } })[];
    reader: Run[];
    store: Run[];
    baseline: Run[];
  } = { import: [], reader: [], store: [], baseline: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.import.push(await inChild('--import', file));
    runs.reader.push(await inChild('--reader', file));
    runs.store.push(await inChild('--store', file));
    runs.baseline.push(await inChild('--baseline', file));
    const last = runs.import.at(-1)!;
    console.log(
      `round ${round + 1}: import ${last.outcome}, stored ${last.row.points_stored}, ${rate(last.seconds)} points/s; ` +
        `reader ${rate(runs.reader.at(-1)!.seconds)}; store ${rate(runs.store.at(-1)!.seconds)}; baseline ${rate(runs.baseline.at(-1)!.seconds)}`,
    );
  }
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const spread = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
  const line = (name: string, list: Run[]) => {
    const rates = list.map((r) => rate(r.seconds));
    const cpuRates = list.map((r) => rate(r.cpuSeconds));
    return (
      `${name}: median ${median(rates)} points/s (${spread(rates)}), ${median(cpuRates)} points per CPU second ` +
      `(${spread(cpuRates)}); peak RSS ${mb(median(list.map((r) => r.peakRss)))} (max ${mb(Math.max(...list.map((r) => r.peakRss)))})`
    );
  };
  console.log(`${POSTGRES ? 'PostgreSQL' : 'SQLite'}; Records.json: ${POINTS} points, ${mb(bytes)}; ${ROUNDS} rounds`);
  console.log(line('import (read + parse + store)', runs.import));
  console.log(line('reader alone (read + parse)', runs.reader));
  console.log(line("Waypost's store alone (no file, the whole schema)", runs.store));
  console.log(line('baseline (store only, minimal schema)', runs.baseline));
  const importRate = median(runs.import.map((r) => rate(r.seconds)));
  const maxRss = Math.max(...runs.import.map((r) => r.peakRss));
  console.log(
    `goals: >= 60000 points/s (${importRate >= 60_000 ? 'met' : 'NOT met'}), ` +
      `peak RSS < 300 MB (${maxRss < 300 * 1024 * 1024 ? 'met' : 'NOT met'})`,
  );
  if (process.env.BENCH_IMPORT_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
}
