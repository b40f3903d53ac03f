// `npm run bench:ingest`: tracker ingest. Overland batches of 100 points, each
// request new points, from 20 concurrent senders (autocannon), against Waypost's
// `POST /ingest/<id>` and, in the same run, hand-written node:http servers doing the same work:
// the plain baseline (bench/plain-server.ts, bench/plain-server-pg.ts: a schema of its own with
// only the indexes its queries use, the same durability, batches that arrive during a commit
// sharing the next one) and, on SQLite, the old one (bench/ingest-raw-server.ts: Waypost's
// tables, a commit a request; BENCH_OLD_BASELINE=0 leaves it out). SQLite, or PostgreSQL with
// BENCH_DATABASE_URL=postgres://user@host:port (a fresh database, dropped after).
// BENCH_ROUNDS rounds (default 3) of BENCH_SECONDS each (default 10, after a warm-up), the servers in turn;
// the medians and the spread are printed, to be recorded by hand in BENCHMARKS.md. Then the same
// senders paced at BENCH_INGEST_RATE requests a second (default 100) for the latency of a
// server that is not saturated.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../scripts/server-flags.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { randomToken, sha256Hex } from '../src/lib/crypto.ts';
import { newId } from '../src/lib/ids.ts';
import pg from 'pg';
import { cpuMsOf } from './harness.ts';
import { BASE_TIME, openBare, seedUser } from './seed.ts';
import { freshPostgres, seedUserPostgres } from './seed-pg.ts';
import { plainPostgres, plainSqlite } from './plain-schema.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = 20;
const POINTS = 100;
/** Requests a second of the paced runs (BENCH_INGEST_RATE): 20 senders, a batch each every 0.2 s. */
const RATE = Number(process.env.BENCH_INGEST_RATE ?? 100);
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-ingest-'));
const children: ChildProcess[] = [];
const POSTGRES = process.env.BENCH_DATABASE_URL;
const OLD = !POSTGRES && process.env.BENCH_OLD_BASELINE !== '0';
const cleanups: (() => Promise<void>)[] = [];

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

/** A migrated PostgreSQL database with a user and an overland service whose token is `token`. */
async function seededPostgres(serviceId: string, token: string): Promise<{ url: string; userId: string }> {
  const { url, drop } = await freshPostgres(POSTGRES!);
  cleanups.push(drop);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await seedUserPostgres(client, 'walker-id', 'walker');
    await client.query(
      `insert into services (id, user_id, type, name, enabled, config, secrets, status, last_error, created_at,
         updated_at, ingest_token_hash)
       values ($1, 'walker-id', 'overland', 'phone', 1, '{}', '', 'ok', null, $2, $2, $3)`,
      [serviceId, BASE_TIME, sha256Hex(token)],
    );
  } finally {
    await client.end();
  }
  return { url, userId: 'walker-id' };
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
  type Server = { port: number; pid: number };
  const servers: Record<string, Server> = {};
  if (POSTGRES) {
    const { url, userId } = await seededPostgres(serviceId, token);
    const options = await plainPostgres(url, { tracker: { id: serviceId, userId, token } });
    servers.plain = await start('plain-server-pg.ts', [url, options]);
    servers.waypost = await start('server.ts', [url, join(work, 'data')]);
  } else {
    const waypostDb = await seeded('waypost.db', serviceId, token);
    const db = openBare(waypostDb);
    const userId = (db.prepare("select id from users where username = 'walker'").get() as { id: string }).id;
    db.close();
    plainSqlite(waypostDb, join(work, 'plain.db'), { tracker: { id: serviceId, userId, token } });
    servers.plain = await start('plain-server.ts', [join(work, 'plain.db')]);
    servers.waypost = await start('server.ts', [waypostDb, join(work, 'data')]);
    if (OLD) servers.old = await start('ingest-raw-server.ts', [await seeded('raw.db', serviceId, token)]);
  }
  const sides = Object.keys(servers);
  const labels: Record<string, string> = {
    waypost: `Waypost POST /ingest/<id> (${POSTGRES ? 'PostgreSQL' : 'SQLite'})`,
    plain: 'plain baseline: node:http, own schema, same durability, commits shared',
    old: "old baseline: node:http + better-sqlite3 on Waypost's tables, a commit a request",
  };

  // Each server gets its own batch numbers: every one stores every point of every request.
  const next = Object.fromEntries(sides.map((side) => [side, { n: 0 }]));
  log(`warm-up, then ${ROUNDS} rounds of ${SECONDS} s each, ${CONNECTIONS} connections, ${POINTS} points a request`);
  for (const side of sides) await load(servers[side]!, serviceId, token, Math.min(3, SECONDS), next[side]!);
  const rounds: Record<string, Load>[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const results: Record<string, Load> = {};
    for (const side of sides) results[side] = await load(servers[side]!, serviceId, token, SECONDS, next[side]!);
    rounds.push(results);
    log(
      `round ${round + 1}: ` +
        sides
          .map((side) => {
            const l = results[side]!;
            return `${side} ${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, CPU ${l.cpuMs.toFixed(2)} ms/request, errors ${l.errors}`;
          })
          .join('; '),
    );
  }
  // The same senders paced: RATE requests a second between them, as phones that send on a
  // schedule do, instead of each sending its next batch the moment the last is answered (where
  // the latency is the queue that 20 back-to-back senders build, whatever the server).
  const paced: Record<string, Load>[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const results: Record<string, Load> = {};
    for (const side of sides) {
      results[side] = await load(servers[side]!, serviceId, token, SECONDS, next[side]!, RATE);
    }
    paced.push(results);
    log(
      `paced round ${round + 1} (${RATE} req/s): ` +
        sides.map((side) => `${side} p50 ${results[side]!.p50} ms, p99 ${results[side]!.p99} ms`).join('; '),
    );
  }
  const pointsPerSecond = (loads: Load[]) => summary(loads, (l) => l.rps * POINTS, 0);
  log('');
  log(
    '| Overland batch of 100 points, 20 senders | p99 ms, median (min-max) | req/s | points/s | server CPU ms/request | errors |',
  );
  log('|---|---|---|---|---|---|');
  const row = (label: string, loads: Load[]) =>
    `| ${label} | ${summary(loads, (l) => l.p99, 0)} | ${summary(loads, (l) => l.rps, 0)} | ${pointsPerSecond(loads)} | ` +
    `${summary(loads, (l) => l.cpuMs, 2)} | ${loads.reduce((s, l) => s + l.errors, 0)} |`;
  for (const side of sides)
    log(
      row(
        labels[side]!,
        rounds.map((r) => r[side]!),
      ),
    );
  for (const side of sides.filter((s) => s !== 'waypost')) {
    const ratio = (pick: (l: Load) => number) => median(rounds.map((r) => pick(r.waypost!) / pick(r[side]!)));
    const each = rounds.map((r) => `${((100 * r.waypost!.rps) / r[side]!.rps).toFixed(0)} %`).join(', ');
    log(
      `| Waypost / ${side}, median of the rounds' ratios (${each}) | p99 x${ratio((l) => l.p99).toFixed(2)} | **${(100 * ratio((l) => l.rps)).toFixed(0)} %** | | CPU x${ratio((l) => l.cpuMs).toFixed(2)} | |`,
    );
  }
  for (const side of sides) {
    log(
      row(
        `${side}, paced at ${RATE} req/s (${RATE * POINTS} points/s)`,
        paced.map((r) => r[side]!),
      ),
    );
  }
  const p99s = (loads: Record<string, Load>[]) => median(loads.map((r) => r.waypost!.p99));
  log(
    `goal: p99 < 20 ms -> back to back ${p99s(rounds) < 20 ? 'met' : 'NOT met'}, paced ${p99s(paced) < 20 ? 'met' : 'NOT met'} (medians of the rounds)`,
  );
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const cleanup of cleanups) await cleanup();
  rmSync(work, { recursive: true, force: true });
}
