// How fast an import is (docs/imports.md): a generated Google Takeout Records.json of BENCH_IMPORT_POINTS points
// (default 1,000,000, written as Takeout writes it: two-space indents, one field a line) imported
// through the import job's own path (the streaming reader, batches, checkpoints, the prepared
// insert) on SQLite, with points/s and the process's peak RSS; beside it, in the same run, a
// bare better-sqlite3 insert of the same rows into the same schema (one prepared statement,
// one transaction per batch), which is the most any import could do.
//   node bench/import.ts            (BENCH_IMPORT_POINTS; BENCH_IMPORT_KEEP=1 keeps the folder)
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
import { newIds } from '../src/lib/ids.ts';
import { createUser } from '../src/users/users.logic.ts';

const POINTS = Number(process.env.BENCH_IMPORT_POINTS ?? 1_000_000);
const dir = process.argv[3] ? dirname(process.argv[3]) : mkdtempSync(join(tmpdir(), 'waypost-bench-import-'));
const START = Date.UTC(2015, 0, 1);

/** The i-th point: a walk around Munich, one fix a minute. */
function fix(i: number) {
  return {
    latitudeE7: 481_372_000 + ((i * 37) % 200_000),
    longitudeE7: 115_756_000 + ((i * 53) % 300_000),
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

async function importRun(file: string) {
  const database = openDatabase({ sqlitePath: join(dir, 'import.db') });
  await migrateToLatest(database);
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
  return { outcome, seconds, cpuSeconds, row };
}

async function baselineRun() {
  const database = openDatabase({ sqlitePath: join(dir, 'baseline.db') });
  await migrateToLatest(database);
  const user = await createUser(
    database.db,
    { username: 'bench', password: 'bench password' },
    { log2N: 10, r: 8, p: 1 },
  );
  const sqlite = database.sqlite!;
  const insert = sqlite.prepare(
    `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source, import_id)
     values (?, ?, 'private', ?, ?, ?, ?, ?, ?, null, null, null, ?) on conflict (user_id, time, lat, lon) do nothing`,
  );
  const batch = sqlite.transaction((from: number, to: number) => {
    const now = Date.now();
    const ids = newIds(to - from, now);
    for (let i = from; i < to; i++) {
      const p = fix(i);
      insert.run(
        user.id,
        ids[i - from]!,
        p.timestampMs,
        now,
        p.latitudeE7 / 1e7,
        p.longitudeE7 / 1e7,
        p.altitude,
        p.accuracy,
        'x',
      );
    }
  });
  const begin = performance.now();
  const cpu = process.cpuUsage();
  for (let from = 0; from < POINTS; from += BATCH_RECORDS) batch(from, Math.min(POINTS, from + BATCH_RECORDS));
  const seconds = (performance.now() - begin) / 1000;
  const cpuSeconds = cpuOf(cpu);
  await database.close();
  return { seconds, cpuSeconds };
}

/** Runs this file again as `mode`, in a process of its own (so its peak RSS is its own); returns its JSON line. */
async function inChild<T>(mode: string, file: string): Promise<T> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), mode, file], {
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
} else if (mode === '--baseline') {
  console.log(JSON.stringify({ ...(await baselineRun()), peakRss: peakRss() }));
} else {
  const file = join(dir, 'Records.json');
  await writeRecords(file);
  const bytes = statSync(file).size;
  const imported = await inChild<Awaited<ReturnType<typeof importRun>> & { rssBefore: number; peakRss: number }>(
    '--import',
    file,
  );
  const baseline = await inChild<Awaited<ReturnType<typeof baselineRun>> & { peakRss: number }>('--baseline', file);

  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  const rate = (seconds: number) => Math.round(POINTS / seconds);
  console.log(
    `Records.json: ${POINTS} points, ${mb(bytes)}; import ${imported.outcome}, stored ${imported.row.points_stored}`,
  );
  console.log(
    `import (read + parse + insert): ${imported.seconds.toFixed(2)} s, ${rate(imported.seconds)} points/s, ` +
      `${(bytes / 1024 / 1024 / imported.seconds).toFixed(1)} MB/s; CPU ${imported.cpuSeconds.toFixed(2)} s ` +
      `(${rate(imported.cpuSeconds)} points per CPU second); peak RSS ${mb(imported.peakRss)} (${mb(imported.rssBefore)} at the start)`,
  );
  console.log(
    `baseline (bare better-sqlite3 insert): ${baseline.seconds.toFixed(2)} s, ${rate(baseline.seconds)} points/s; ` +
      `CPU ${baseline.cpuSeconds.toFixed(2)} s (${rate(baseline.cpuSeconds)} points per CPU second); peak RSS ${mb(baseline.peakRss)}`,
  );
  console.log(
    `import at ${Math.round((100 * baseline.seconds) / imported.seconds)} % of the baseline's wall time rate, ` +
      `${Math.round((100 * baseline.cpuSeconds) / imported.cpuSeconds)} % of its CPU rate; ` +
      `goals: >= 100000 points/s (${rate(imported.seconds) >= 100_000 ? 'met' : 'NOT met'}), ` +
      `peak RSS < 300 MB (${imported.peakRss < 300 * 1024 * 1024 ? 'met' : 'NOT met'})`,
  );
  if (process.env.BENCH_IMPORT_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
}
