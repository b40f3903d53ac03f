// `npm run bench:import-isolation`: does the server keep answering while an import runs
// (issue 30, docs/imports.md "How an import runs")? A Waypost server with its job worker
// (bench/server.ts, BENCH_JOBS=1) on SQLite (or on PostgreSQL with BENCH_DATABASE_URL, a database of
// its own each time), 20,000 public posts; a probe on one connection asks
// for /healthz and a public page (built on every request: no copies kept) in turn, and their
// latencies (about 60 requests a second) are taken with no import running, while a Records.json of about BENCH_IMPORT_MB
// (default 50) MB is imported, and while a bracket bomb of the same size ({"locations":[[[[...,
// the file) is. Each import is run by a server whose imports run in a child process (as
// `waypost serve` does) and, for the Records.json, by one that runs them in its own process (as
// before: BENCH_IMPORTS_IN_PROCESS), for comparison; the bomb is not given to that one, which it
// would kill. BENCH_ROUNDS rounds (default 2). The server's peak RSS is read from /proc.
// Numbers are printed; nothing here asserts them.
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { children, log, migratedDb, start } from './harness.ts';
import { openBare, seedPosts, seedUser } from './seed.ts';
import { freshPostgres, seedPostgres } from './seed-pg.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MEGABYTES = Number(process.env.BENCH_IMPORT_MB ?? 50);
/** Seconds of the probe with no import running. */
const BASELINE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-isolation-'));
const START = Date.UTC(2015, 0, 1);

/** A Records.json as Takeout writes it (two-space indents, one field a line), of about `bytes`. */
async function writeRecords(path: string, bytes: number): Promise<number> {
  const out = createWriteStream(path);
  out.write('{\n  "locations": [');
  let written = 0;
  let i = 0;
  for (; written < bytes; i++) {
    const record =
      `${i === 0 ? '' : ','}{\n    "latitudeE7": ${481_372_000 + ((i * 37) % 200_000)},\n` +
      `    "longitudeE7": ${115_756_000 + ((i * 53) % 300_000)},\n    "accuracy": ${5 + (i % 40)},\n` +
      `    "altitude": ${500 + (i % 50)},\n    "verticalAccuracy": 3,\n    "source": "WIFI",\n` +
      `    "deviceTag": 1234567890,\n    "platformType": "ANDROID",\n` +
      `    "timestamp": "${new Date(START + i * 60_000).toISOString()}"\n  }`;
    written += record.length;
    if (!out.write(record)) await once(out, 'drain');
  }
  out.end('\n  ]\n}\n');
  await once(out, 'finish');
  return i;
}

async function writeBomb(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('{"locations":[');
  const chunk = '['.repeat(1024 * 1024);
  for (let written = 0; written < bytes; written += chunk.length) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

interface Server {
  url: string;
  token: string;
  pid: number;
}

async function startServer(db: string, inProcess: boolean): Promise<Server> {
  const env: Record<string, string> = {
    BENCH_JOBS: '1',
    BENCH_TOKEN_USER: ownerId,
    WAYPOST_PUBLIC_CACHE_MB: '0',
    BENCH_LOG_LEVEL: 'warn',
  };
  if (inProcess) env.BENCH_IMPORTS_IN_PROCESS = '1';
  const { port, token } = await start('server.ts', [db, join(work, `data-${inProcess ? 'in' : 'child'}`)], env);
  return { url: `http://127.0.0.1:${port}`, token: token!, pid: children.at(-1)!.pid! };
}

const POSTGRES = process.env.BENCH_DATABASE_URL;
const drops: (() => Promise<void>)[] = [];

/** A migrated database with the owner and 20,000 public posts of another person: a SQLite file, or on PostgreSQL a database of its own. */
async function freshDatabase(name: string): Promise<string> {
  if (POSTGRES) {
    const { url, drop } = await freshPostgres(POSTGRES);
    drops.push(drop);
    ownerId = (await seedPostgres(url, { locations: 0, posts: 0, media: 0 }, 20_000)).owner;
    return url;
  }
  const db = await migratedDb(work, `${name}.db`);
  const bare = openBare(db);
  ownerId = seedUser(bare, 'owner');
  seedPosts(bare, seedUser(bare, 'reader'), 20_000);
  bare.close();
  return db;
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

interface Probe {
  healthz: number[];
  page: number[];
  failures: number;
}

async function timed(url: string): Promise<number | undefined> {
  const t0 = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    return response.ok ? performance.now() - t0 : undefined;
  } catch {
    return undefined;
  }
}

/** Between two pairs of probes: about 60 requests a second, a busy person's apps and readers, not a load test. */
const PROBE_PAUSE_MS = 25;

/** Asks for /healthz and the public page in turn, one request at a time, until `until` resolves. */
async function probe(server: Server, until: Promise<unknown>): Promise<Probe> {
  let done = false;
  void until.finally(() => (done = true));
  const result: Probe = { healthz: [], page: [], failures: 0 };
  while (!done) {
    for (const [list, path] of [
      [result.healthz, '/healthz'],
      [result.page, '/posts/public/reader?count=50'],
    ] as const) {
      const ms = await timed(server.url + path);
      if (ms === undefined) result.failures += 1;
      else list.push(ms);
    }
    await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
  }
  return result;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** Uploads `file`, resolves when its import has ended; the server's peak RSS meanwhile. */
async function importFile(server: Server, file: string, name: string) {
  const form = new FormData();
  form.append('file', await openAsBlob(file), name);
  const t0 = performance.now();
  const posted = await fetch(`${server.url}/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}` },
    body: form,
  });
  if (posted.status !== 202) throw new Error(`POST /imports: ${posted.status} ${await posted.text()}`);
  const { id } = (await posted.json()) as { id: string };
  let peak = rssMb(server.pid);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    peak = Math.max(peak, rssMb(server.pid));
    const response = await fetch(`${server.url}/imports/${id}`, {
      headers: { authorization: `Bearer ${server.token}` },
    }).catch(() => undefined);
    if (!response) throw new Error('the server stopped answering');
    const state = (await response.json()) as { status: string; points_stored: number; errors: { message: string }[] };
    if (state.status !== 'queued' && state.status !== 'running') {
      return { seconds: (performance.now() - t0) / 1000, peakRssMb: peak, ...state };
    }
  }
}

const rows: string[] = [];
function row(what: string, seconds: number, p: Probe, rss: number, outcome = '') {
  const f = (n: number) => n.toFixed(1);
  rows.push(
    `| ${what} | ${seconds.toFixed(1)} | ${p.healthz.length} | ${f(percentile(p.healthz, 50))} | ${f(percentile(p.healthz, 99))} | ${f(percentile(p.page, 50))} | ${f(percentile(p.page, 99))} | ${f(Math.max(...p.healthz, ...p.page))} | ${p.failures} | ${rss.toFixed(0)} | ${outcome} |`,
  );
}

let ownerId = '';

async function main() {
  const records = join(work, 'Records.json');
  const bomb = join(work, 'bomb.json');
  const points = await writeRecords(records, MEGABYTES * 1024 * 1024);
  await writeBomb(bomb, MEGABYTES * 1024 * 1024);
  log(
    `Records.json: ${(statSync(records).size / 1024 ** 2).toFixed(1)} MB, ${points} points; bomb: ${(statSync(bomb).size / 1024 ** 2).toFixed(1)} MB`,
  );

  for (let round = 1; round <= ROUNDS; round++) {
    for (const inProcess of [false, true]) {
      // A fresh database each time: every import stores its points anew.
      const db = await freshDatabase(`r${round}-${inProcess ? 'in' : 'child'}`);
      const server = await startServer(db, inProcess);
      const mode = inProcess ? 'in the server (before)' : 'in a child (now)';
      const quiet = probe(server, new Promise((resolve) => setTimeout(resolve, BASELINE_SECONDS * 1000)));
      row(`round ${round}, ${mode}: no import`, BASELINE_SECONDS, await quiet, rssMb(server.pid));
      const running = importFile(server, records, 'Records.json');
      const during = await probe(server, running);
      const done = await running;
      row(
        `round ${round}, ${mode}: Records.json`,
        done.seconds,
        during,
        done.peakRssMb,
        `${done.status}, ${done.points_stored} points`,
      );
      if (!inProcess) {
        const refusing = importFile(server, bomb, 'Records.json');
        const underBomb = await probe(server, refusing);
        const refused = await refusing;
        row(
          `round ${round}, ${mode}: bracket bomb`,
          refused.seconds,
          underBomb,
          refused.peakRssMb,
          `${refused.status}: ${refused.errors[0]?.message.slice(0, 60) ?? ''}...`,
        );
      }
      children.pop()?.kill('SIGTERM');
    }
  }
  log('');
  log(
    '| what | seconds | probes | /healthz p50 ms | /healthz p99 ms | page p50 ms | page p99 ms | max ms | failed | server RSS MB (peak) | import |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const line of rows) log(line);
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGKILL');
  for (const drop of drops) await drop().catch(() => {});
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}
