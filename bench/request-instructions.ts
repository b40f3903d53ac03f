// `npm run bench:request-instructions -- <kind> <name>=<checkout>|plain ...`: how many machine
// instructions one private page costs each server, counted by valgrind's callgrind, so a change
// too small for this machine's timings to show (BENCHMARKS.md "Counting instructions") is
// measured all the same. Needs valgrind (Debian's package).
//
// Each side is `bench/server.ts` of a checkout, with that checkout's server flags (and V8's memory
// reducer off, below), or `plain`: the plain baseline (bench/plain-server.ts) on its own schema.
// Each runs under callgrind with counting off, on its own copy of one seeded SQLite file (200,000
// points, 100,000 posts, 20,000 media, private), gets BENCH_WARMUP requests (default 1,500: the
// code is compiled by then), then BENCH_REQUESTS more (default 1,000) with counting on, in
// BENCH_ROUNDS rounds (default 1; each side once a round, a new process each time; the median and
// min-max are printed). Every side gets the same requests (a fixed sequence of random
// `until_time`s, 10 connections). Printed per side: the instructions a request of the server's
// threads (its own work, the database's and the collector's; not the kernel's), and their share of
// the first side's. BENCH_CACHE_SIM=1 also simulates the caches and branch predictor: misses of
// the first-level data and instruction caches and of the last level, and mispredicted branches, a
// request. That runs slower still, so its instruction counts are not those of a plain count. Sides
// run one after another; a count varies from one run to the next by a per cent or two (when the
// code is compiled and the heap collected depends on timing), and changes with the tool's options,
// so compare within one run.
// Nothing here asserts them.
//
//   npm run bench:request-instructions -- posts before=../waypost-main after=. plain=plain
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { children, log, median, migratedDb, serverFlags, spread } from './harness.ts';
import { plainSqlite } from './plain-schema.ts';
import { BASE_TIME, openBare, seedPrivateItems, seedUser } from './seed.ts';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const CACHE_SIM = process.env.BENCH_CACHE_SIM === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const COUNTS = { locations: 200_000, posts: 100_000, media: 20_000 };
type Kind = keyof typeof COUNTS;
/** The plain server's token (its own table holds its hash). */
const PLAIN_TOKEN = 'plain-bench-token-0123456789abcdefghijklmnop';

const [kind, ...sides] = process.argv.slice(2);
if (!kind || !(kind in COUNTS) || sides.length === 0 || sides.some((side) => !/^[a-z0-9_]+=./.test(side))) {
  throw new Error('usage: request-instructions.ts <locations|posts|media> <name>=<checkout>|plain ...');
}
if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed');
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-request-instructions-'));

/** Requests `count` pages, 10 at a time, the `until_time`s drawn from `next`. */
async function requestPages(port: number, token: string, count: number, next: () => number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  let sent = 0;
  const one = () =>
    new Promise<void>((done, fail) => {
      const path = `/${kind}/private?count=50&until_time=${next() / 1000}`;
      http
        .get({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
          if (response.statusCode !== 200) fail(new Error(`${path}: ${response.statusCode}`));
          response.resume().on('end', done);
        })
        .on('error', fail);
    });
  const connection = async () => {
    while (sent < count) {
      sent += 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: 10 }, connection));
  agent.destroy();
}

/** The same sequence of page starts for every side (a linear congruential generator mod 2^32). */
function startsFrom(seed: number): () => number {
  let state = seed;
  const n = COUNTS[kind as Kind];
  return () => {
    // In 32-bit integers: a double product of the two would round away the low bits.
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return BASE_TIME + 100_000 + Math.floor((state / 2 ** 32) * (n - 100)) * 1000;
  };
}

const callgrindControl = (...args: string[]) => {
  const result = spawnSync('callgrind_control', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${result.stderr}`);
};

interface Counts {
  events: string[];
  totals: number[];
}

/** Runs one side under callgrind; the events it counted over the measured requests. */
async function measure(name: string, spec: string, seeded: { waypost: string; plain: string; userId: string }) {
  const plain = spec === 'plain';
  const checkout = plain ? resolve('.') : resolve(spec);
  const database = join(work, `${name}.db`);
  copyFileSync(plain ? seeded.plain : seeded.waypost, database);
  const script = plain
    ? [join(checkout, 'bench/plain-server.ts'), database]
    : [join(checkout, 'bench/server.ts'), database, join(work, `${name}-data`)];
  const out = join(work, `${name}.callgrind`);
  const simulate = CACHE_SIM ? ['--cache-sim=yes', '--branch-sim=yes'] : [];
  // V8's memory reducer starts a full collection when a process looks idle, as one slowed down
  // fifty times by valgrind does (and more so on a busy machine): counts then swung by a quarter.
  // At full speed under load it never runs, so it is off here for every side.
  const flags = [...(plain ? [] : await serverFlags(checkout)), '--no-memory-reducer'];
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--collect-jumps=no',
      ...simulate,
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...flags,
      ...script,
    ],
    {
      env: {
        ...process.env,
        BENCH_TOKEN_USER: seeded.userId,
        BENCH_TOKEN_PERMISSIONS: 'get_private_scope',
        WAYPOST_PUBLIC_CACHE_MB: '0',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  children.push(child);
  let ready: { port: number; token?: string } | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    ready = JSON.parse(line) as { port: number; token?: string };
    break;
  }
  if (!ready) throw new Error(`${name}: the server exited before it was ready`);
  const token = ready.token ?? PLAIN_TOKEN;
  await requestPages(ready.port, token, WARMUP, startsFrom(1));
  callgrindControl('--instr=on', String(child.pid));
  await requestPages(ready.port, token, REQUESTS, startsFrom(2));
  callgrindControl('--dump', String(child.pid));
  callgrindControl('--instr=off', String(child.pid));
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
  // The dump asked for above is the file's first part.
  const dump = readFileSync(`${out}.1`, 'utf8');
  const events = /^events: (.*)$/m.exec(dump)?.[1]?.split(' ') ?? [];
  const totals = /^summary: (.*)$/m.exec(dump)?.[1]?.split(' ').map(Number) ?? [];
  return { events, totals } satisfies Counts;
}

async function main() {
  log(`seeding ${COUNTS.locations} points, ${COUNTS.posts} posts, ${COUNTS.media} media (private)...`);
  const waypost = await migratedDb(work, 'seeded.db');
  const bare = openBare(waypost);
  const userId = seedUser(bare, 'owner');
  seedPrivateItems(bare, userId, COUNTS);
  bare.close();
  const plain = join(work, 'plain.db');
  plainSqlite(waypost, plain, { token: { token: PLAIN_TOKEN, userId, permissions: ['get_private_scope'] } });

  const results = sides.map((side) => {
    const at = side.indexOf('=');
    const [name, spec] = [side.slice(0, at), side.slice(at + 1)];
    return {
      name,
      spec,
      label: `${name} (${spec === 'plain' ? 'the plain server' : resolve(spec)})`,
      rounds: [] as Counts[],
    };
  });
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of results) {
      log(`round ${round + 1}, ${side.name}: under callgrind...`);
      side.rounds.push(await measure(`${side.name}${round}`, side.spec, { waypost, plain, userId }));
    }
  }

  const per = (counts: Counts, event: string) => (counts.totals[counts.events.indexOf(event)] ?? NaN) / REQUESTS;
  const first = results[0]!.rounds;
  const columns: [string, (c: Counts) => number][] = [['instructions', (c) => per(c, 'Ir')]];
  if (CACHE_SIM) {
    columns.push(
      ['L1 data misses', (c) => per(c, 'D1mr') + per(c, 'D1mw')],
      ['L1 instruction misses', (c) => per(c, 'I1mr')],
      ['last-level misses', (c) => per(c, 'DLmr') + per(c, 'DLmw') + per(c, 'ILmr')],
      ['mispredicted branches', (c) => per(c, 'Bcm') + per(c, 'Bim')],
    );
  }
  log(
    `| GET /${kind}/private?count=50, ${REQUESTS} requests after ${WARMUP}, a request, ${ROUNDS} rounds | ${columns.map(([label]) => label).join(' | ')} | instructions / ${results[0]!.name}'s in the same round |`,
  );
  log(`|---|${columns.map(() => '---').join('|')}|---|`);
  const cell = (values: number[], digits: number) =>
    ROUNDS === 1 ? values[0]!.toFixed(digits) : `${median(values).toFixed(digits)} (${spread(values, digits)})`;
  for (const { label, rounds } of results) {
    const cells = columns.map(([, of]) => cell(rounds.map(of), 0));
    const ratios = rounds.map((counts, round) => per(counts, 'Ir') / per(first[round]!, 'Ir'));
    log(`| ${label} | ${cells.join(' | ')} | ${cell(ratios, 3)} |`);
  }
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
