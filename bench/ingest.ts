// `npm run bench:ingest`: tracker ingest. Overland batches of 100 points, each
// request new points, from 20 concurrent senders (autocannon), against Waypost's
// `POST /ingest/<id>` and, in the same run, a minimal node:http + better-sqlite3 server doing
// the same work (bench/ingest-raw-server.ts). Goal: p99 under 20 ms. BENCH_ROUNDS rounds
// (default 3) of BENCH_SECONDS each (default 10, after a warm-up), the two servers in turn;
// the medians and the spread are printed, to be recorded by hand in BENCHMARKS.md. Then the same
// senders paced at BENCH_INGEST_RATE requests a second (default 100) for the latency of a
// server that is not saturated.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { randomToken, sha256Hex } from '../src/lib/crypto.ts';
import { newId } from '../src/lib/ids.ts';
import { BASE_TIME, openBare, seedUser } from './seed.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = 20;
const POINTS = 100;
/** Requests a second of the paced runs (BENCH_INGEST_RATE): 20 senders, a batch each every 0.2 s. */
const RATE = Number(process.env.BENCH_INGEST_RATE ?? 100);
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-ingest-'));
const children: ChildProcess[] = [];

function log(line: string) {
  process.stdout.write(`${line}\n`);
}

async function start(script: string, args: string[]) {
  // Waypost's server runs with the flags the `waypost` command gives it.
  const flags = script === 'server.ts' ? SERVER_NODE_FLAGS : [];
  const child = spawn(process.execPath, [...flags, join(import.meta.dirname, script), ...args], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) return { ...(JSON.parse(line) as { port: number }), pid: child.pid ?? 0 };
  throw new Error(`${script} exited before it was ready`);
}

/** A migrated SQLite file with a user and an overland service whose token is `token`. */
async function seeded(name: string, serviceId: string, token: string): Promise<string> {
  const path = join(work, name);
  const database = openDatabase({ sqlitePath: path });
  await migrateToLatest(database);
  await database.close();
  const db = openBare(path);
  const userId = seedUser(db, 'walker');
  db.prepare(
    `insert into services (id, user_id, type, name, enabled, config, secrets, status, last_error, created_at,
       updated_at, ingest_token_hash)
     values (?, ?, 'overland', 'phone', 1, '{}', '', 'ok', null, ?, ?, ?)`,
  ).run(serviceId, userId, BASE_TIME, BASE_TIME, sha256Hex(token));
  db.close();
  return path;
}

/** Overland batch number `n`: 100 points a second apart, new times for every batch. */
function batch(n: number): string {
  const locations = Array.from({ length: POINTS }, (_, j) => {
    const i = n * POINTS + j;
    return {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [13.4 + (i % 991) / 1e4, 52.5 + (i % 997) / 1e4] },
      properties: {
        timestamp: new Date(BASE_TIME + i * 1000).toISOString(),
        altitude: 34,
        speed: 1.4,
        horizontal_accuracy: 5,
        vertical_accuracy: 3,
        course: 90,
        motion: ['walking'],
        battery_state: 'unplugged',
        battery_level: 0.8,
        wifi: '',
      },
    };
  });
  return JSON.stringify({ locations });
}

interface Load {
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  /** CPU time the server process used per answered request, in ms: what the machine's load
   * (six engineers' test suites here) changes least. */
  cpuMs: number;
}

/** User and system CPU time of a process so far, in ms (Linux /proc, 100 ticks a second). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One load run against a server; `next` numbers the batches across every run. */
async function load(
  { port, pid }: { port: number; pid: number },
  serviceId: string,
  token: string,
  seconds: number,
  next: { n: number },
  rate?: number,
) {
  const cpuBefore = cpuMsOf(pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    ...(rate === undefined ? {} : { overallRate: rate }),
    requests: [
      {
        method: 'POST',
        path: `/ingest/${serviceId}`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: batch((next.n += 1)) }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    p50: result.latency.p50,
    errors: result.non2xx + result.errors,
    cpuMs: (cpuMsOf(pid) - cpuBefore) / Math.max(1, result.requests.total),
  } satisfies Load;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function summary(loads: Load[], pick: (load: Load) => number, digits: number): string {
  const values = loads.map(pick);
  const spread = `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
  return `${median(values).toFixed(digits)} (${spread})`;
}

async function main() {
  const serviceId = newId();
  const token = randomToken(32);
  const waypostDb = await seeded('waypost.db', serviceId, token);
  const rawDb = await seeded('raw.db', serviceId, token);
  const waypost = await start('server.ts', [waypostDb, join(work, 'data')]);
  const raw = await start('ingest-raw-server.ts', [rawDb]);

  // Each server gets its own batch numbers: both store every point of every request.
  const waypostNext = { n: 0 };
  const rawNext = { n: 0 };
  log(`warm-up, then ${ROUNDS} rounds of ${SECONDS} s each, ${CONNECTIONS} connections, ${POINTS} points a request`);
  await load(waypost, serviceId, token, Math.min(3, SECONDS), waypostNext);
  await load(raw, serviceId, token, Math.min(3, SECONDS), rawNext);
  const rounds: { waypost: Load; raw: Load }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const w = await load(waypost, serviceId, token, SECONDS, waypostNext);
    const r = await load(raw, serviceId, token, SECONDS, rawNext);
    rounds.push({ waypost: w, raw: r });
    log(
      `round ${round + 1}: Waypost ${w.rps.toFixed(0)} req/s, p50 ${w.p50} ms, p99 ${w.p99} ms, ` +
        `CPU ${w.cpuMs.toFixed(2)} ms/request, errors ${w.errors}; baseline ${r.rps.toFixed(0)} req/s, ` +
        `p50 ${r.p50} ms, p99 ${r.p99} ms, CPU ${r.cpuMs.toFixed(2)} ms/request, errors ${r.errors}`,
    );
  }
  // The same senders paced: RATE requests a second between them, as phones that send on a
  // schedule do, instead of each sending its next batch the moment the last is answered (where
  // the latency is the queue that 20 back-to-back senders build, whatever the server).
  const paced: { waypost: Load; raw: Load }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const w = await load(waypost, serviceId, token, SECONDS, waypostNext, RATE);
    const r = await load(raw, serviceId, token, SECONDS, rawNext, RATE);
    paced.push({ waypost: w, raw: r });
    log(
      `paced round ${round + 1} (${RATE} req/s): Waypost p50 ${w.p50} ms, p99 ${w.p99} ms, errors ${w.errors}; ` +
        `baseline p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}`,
    );
  }
  const w = rounds.map((r) => r.waypost);
  const b = rounds.map((r) => r.raw);
  const pointsPerSecond = (loads: Load[]) => summary(loads, (l) => l.rps * POINTS, 0);
  log('');
  log(
    '| Overland batch of 100 points, 20 senders | p99 ms, median (min-max) | req/s | points/s | server CPU ms/request | errors |',
  );
  log('|---|---|---|---|---|---|');
  const row = (label: string, loads: Load[]) =>
    `| ${label} | ${summary(loads, (l) => l.p99, 0)} | ${summary(loads, (l) => l.rps, 0)} | ${pointsPerSecond(loads)} | ` +
    `${summary(loads, (l) => l.cpuMs, 2)} | ${loads.reduce((s, l) => s + l.errors, 0)} |`;
  log(row('Waypost POST /ingest/<id>', w));
  log(row('baseline: node:http + better-sqlite3, same work, one commit a request', b));
  log(
    `| Waypost / baseline, median of the rounds' ratios | p99 x${median(rounds.map((r) => r.waypost.p99 / r.raw.p99)).toFixed(2)} | ${(100 * median(rounds.map((r) => r.waypost.rps / r.raw.rps))).toFixed(0)} % | | CPU x${median(rounds.map((r) => r.waypost.cpuMs / r.raw.cpuMs)).toFixed(2)} | |`,
  );
  log(
    row(
      `Waypost, paced at ${RATE} req/s (${RATE * POINTS} points/s)`,
      paced.map((r) => r.waypost),
    ),
  );
  log(
    row(
      `baseline, paced at ${RATE} req/s`,
      paced.map((r) => r.raw),
    ),
  );
  const p99s = (loads: { waypost: Load }[]) => median(loads.map((r) => r.waypost.p99));
  log(
    `goal: p99 < 20 ms -> back to back ${p99s(rounds) < 20 ? 'met' : 'NOT met'}, paced ${p99s(paced) < 20 ? 'met' : 'NOT met'} (medians of the rounds)`,
  );
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
