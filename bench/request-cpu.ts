// `npm run bench:request-cpu -- <kind> <name>=<checkout>|plain[:<node flag>...] ...`: what one
// private page costs a server in CPU time, for several checkouts (or Node flags) side by side,
// so a change to the request path is measured against the code before it on the same machine
// and data. Each side is `bench/server.ts` of its checkout, with that checkout's server flags
// unless flags are given, or `plain`: the plain baseline (bench/plain-server.ts,
// bench/plain-server-pg.ts) on its own schema, with no flags unless given. Each side has its own
// copy of one seeded SQLite file (200,000 points, 100,000 posts, 20,000 media, private), or with
// BENCH_DATABASE_URL=postgres://user@host:port its own copy of one seeded PostgreSQL database
// (made there and dropped after); the checkouts must know the same migrations. Side names are
// lower-case letters, digits and _. In each round every side is loaded in turn: 10
// connections, BENCH_SECONDS (default 5) after a warm-up, a random `until_time` each request.
// Printed per side: the server's CPU time per answered request (from /proc; what the machine's
// other load changes least) and the kernel's part of it, the whole machine's (the server,
// PostgreSQL's processes and the load generator), its rate and p99, as the median (min-max)
// of BENCH_ROUNDS rounds (default 5), and its CPU time as a share of the first side's in the
// same round (paired, so the machine's load in that round cancels out). Each round starts with
// the next side. Nothing here asserts them.
//
//   npm run bench:request-cpu -- posts before=../waypost-main after=.
//   npm run bench:request-cpu -- locations small=.:--max-semi-space-size=4 large=.:--max-semi-space-size=16
//   npm run bench:request-cpu -- locations way=. plain=plain
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { children, load, log, median, migratedDb, serverFlags, spread, type Load } from './harness.ts';
import { plainPostgres, plainSqlite } from './plain-schema.ts';
import { BASE_TIME, openBare, seedPrivateItems, seedUser } from './seed.ts';
import { analyzePostgres, copyDatabase, dropDatabase, freshPostgres, seedPostgres } from './seed-pg.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const COUNTS = { locations: 200_000, posts: 100_000, media: 20_000 };
type Kind = keyof typeof COUNTS;
/** The plain server's token (its own table holds its hash). */
const PLAIN_TOKEN = 'plain-bench-token-0123456789abcdefghijklmnop';

const [kind, ...sides] = process.argv.slice(2);
if (!kind || !(kind in COUNTS) || sides.length === 0 || sides.some((side) => !/^[a-z0-9_]+=/.test(side))) {
  throw new Error('usage: request-cpu.ts <locations|posts|media> <name>=<checkout>|plain[:<node flag>...] ...');
}
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-request-cpu-'));
const POSTGRES = process.env.BENCH_DATABASE_URL;
const cleanups: (() => Promise<void>)[] = [];

/** The seeded database: a SQLite file's path, or a PostgreSQL database's URL. */
async function seed(): Promise<{ seeded: string; userId: string }> {
  if (POSTGRES) {
    const { url, drop } = await freshPostgres(POSTGRES);
    cleanups.push(drop);
    const { owner } = await seedPostgres(url, COUNTS, 0);
    await analyzePostgres(url);
    return { seeded: url, userId: owner };
  }
  const seeded = await migratedDb(work, 'seeded.db');
  const bare = openBare(seeded);
  const userId = seedUser(bare, 'owner');
  seedPrivateItems(bare, userId, COUNTS);
  bare.close();
  return { seeded, userId };
}

/** A side's own copy of the seeded database. */
async function copyOf(seeded: string, name: string): Promise<string> {
  if (!POSTGRES) {
    const file = join(work, `${name}.db`);
    copyFileSync(seeded, file);
    return file;
  }
  const template = new URL(seeded).pathname.slice(1);
  const copy = `${template}_${name}`;
  cleanups.push(() => dropDatabase(POSTGRES, copy));
  return copyDatabase(POSTGRES, template, copy);
}

/** The plain server's arguments (or, with `layers`, the framework floor's, bench/stack-server.ts):
 * its own schema, filled from the side's copy of the items. */
async function plainArgs(name: string, seeded: string, userId: string, layers?: string): Promise<string[]> {
  const setup = { token: { token: PLAIN_TOKEN, userId, permissions: ['get_private_scope'] } };
  if (!POSTGRES) {
    const file = join(work, `${name}.db`);
    plainSqlite(seeded, file, setup);
    if (layers !== undefined) return [join(import.meta.dirname, 'stack-server.ts'), file, layers];
    return [join(import.meta.dirname, 'plain-server.ts'), file];
  }
  const copy = await copyOf(seeded, name);
  const options = await plainPostgres(copy, setup);
  if (layers !== undefined) return [join(import.meta.dirname, 'stack-server.ts'), copy, layers, options];
  return [join(import.meta.dirname, 'plain-server-pg.ts'), copy, options];
}

async function startSide(name: string, spec: string, seeded: string, userId: string) {
  const [dir = '.', ...given] = spec.split(':');
  const stack = /^stack(?:\/([a-z,]*))?$/.exec(dir);
  const plain = dir === 'plain' || stack !== null;
  const checkout = resolve(plain ? '.' : dir);
  const flags = given.length > 0 || plain ? given : await serverFlags(checkout);
  const script = plain
    ? await plainArgs(name, seeded, userId, stack ? (stack[1] ?? 'schemas,kysely,log,metrics') : undefined)
    : [join(checkout, 'bench/server.ts'), await copyOf(seeded, name), join(work, `${name}-data`)];
  const child = spawn(process.execPath, [...flags, ...script], {
    env: {
      ...process.env,
      BENCH_TOKEN_USER: userId,
      BENCH_TOKEN_PERMISSIONS: 'get_private_scope',
      WAYPOST_PUBLIC_CACHE_MB: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  for await (const line of createInterface({ input: child.stdout })) {
    const { port, token } = JSON.parse(line) as { port: number; token?: string };
    return {
      name,
      label: `${name} (${stack ? `the framework floor: fastify ${stack[1] ?? 'schemas,kysely,log,metrics'}` : plain ? 'the plain server' : checkout}${flags.length ? ` ${flags.join(' ')}` : ''})`,
      port,
      token: plain ? PLAIN_TOKEN : token!,
      pid: child.pid!,
    };
  }
  throw new Error(`${name}: the server in ${checkout} exited before it was ready`);
}

async function main() {
  log(`seeding ${COUNTS.locations} points, ${COUNTS.posts} posts, ${COUNTS.media} media (private)...`);
  const { seeded, userId } = await seed();

  const servers = [];
  for (const side of sides) {
    const at = side.indexOf('=');
    servers.push(await startSide(side.slice(0, at), side.slice(at + 1), seeded, userId));
  }
  const n = COUNTS[kind as Kind];
  const path = () =>
    `/${kind}/private?count=50&until_time=${(BASE_TIME + 100_000 + Math.floor(Math.random() * (n - 100) * 1000)) / 1000}`;
  const loads = new Map<string, Load[]>(servers.map((server) => [server.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each round starts with the next side, so no side always runs first (or right after another).
    for (const server of [...servers.slice(round % servers.length), ...servers.slice(0, round % servers.length)]) {
      const headers = { authorization: `Bearer ${server.token}` };
      const result = await load(`http://127.0.0.1:${server.port}`, 10, SECONDS, { headers, path, pid: server.pid });
      if (result.non2xx > 0) throw new Error(`${server.name}: ${result.non2xx} answers were not 2xx`);
      loads.get(server.name)!.push(result);
    }
  }
  log(
    `| GET /${kind}/private?count=50, 10 connections, ${ROUNDS} rounds of ${SECONDS} s | CPU ms/request | of which system | CPU / ${servers[0]!.name}'s in the same round | machine CPU ms/request | req/s | p99 ms |`,
  );
  log('|---|---|---|---|---|---|---|');
  const first = loads.get(servers[0]!.name)!;
  for (const server of servers) {
    const results = loads.get(server.name)!;
    const cell = (values: number[], digits: number) => `${median(values).toFixed(digits)} (${spread(values, digits)})`;
    log(
      `| ${server.label} | ${cell(
        results.map((l) => l.cpuMs),
        3,
      )} | ${cell(
        results.map((l) => l.sysMs),
        3,
      )} | ${cell(
        // Paired within a round: what the machine's load does to both in that round cancels out.
        results.map((l, round) => l.cpuMs / first[round]!.cpuMs),
        3,
      )} | ${cell(
        results.map((l) => l.machineMs),
        3,
      )} | ${cell(
        results.map((l) => l.rps),
        0,
      )} | ${cell(
        results.map((l) => l.p99),
        0,
      )} |`,
    );
  }
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(work, { recursive: true, force: true });
}
