// `npm run bench:requests`: what a person's own apps pay per request, beside two hand-written
// servers doing the same work, in alternating rounds (plain, Waypost, old; plain, Waypost, old;
// ...): the plain baseline (bench/plain-server.ts, bench/plain-server-pg.ts) on a schema of its
// own with a plain token table, and the old baseline (bench/baseline-server.ts) on Waypost's
// tables, which reads tokens out of the OAuth library's JSON as Waypost stores them (skipped
// with BENCH_OLD_BASELINE=0). Pages start at a random `until_time` or at a cursor each server
// gave out, half and half. Then the public page built on every request beside raw node:http
// serving its bytes.
// SQLite, or PostgreSQL with BENCH_DATABASE_URL=postgres://user@host:port (a fresh database is
// made there and dropped after). Bounded: BENCH_SECONDS per load (default 5), BENCH_ROUNDS rounds (default 3),
// BENCH_BATCHES batches of 1000 points per round (default 20). Numbers are printed; nothing
// here asserts them. BENCH_PROFILE=1 writes CPU profiles of the Waypost server and of the plain
// baseline to .tmp/ (one file each, named by process id, which it prints).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { children, load, log, median, migratedDb, spread, start, type Load } from './harness.ts';
import { BASE_TIME, openBare, pointBatch, seedPosts, seedPrivateItems, seedUser } from './seed.ts';
import { analyzePostgres, freshPostgres, seedPostgres } from './seed-pg.ts';
import { plainPostgres, plainSqlite } from './plain-schema.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const COUNTS = { locations: 200_000, posts: 100_000, media: 20_000 };
// BENCH_KINDS=posts,media loads only those pages; BENCH_WRITES=0 leaves the writes out (for a
// profile of the reads alone).
const KINDS = Object.entries(COUNTS).filter(([kind]) => process.env.BENCH_KINDS?.split(',').includes(kind) ?? true);
const WRITES = process.env.BENCH_WRITES !== '0';
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-requests-'));
const PERMISSIONS = 'get_private_scope,write_locations,create_post,create_service,manage_groups';

const POSTGRES = process.env.BENCH_DATABASE_URL;
const OLD = process.env.BENCH_OLD_BASELINE !== '0';
const cleanups: (() => Promise<void>)[] = [];

async function seed(): Promise<{ path: string; userId: string }> {
  if (POSTGRES) {
    const { url, drop } = await freshPostgres(POSTGRES);
    cleanups.push(drop);
    const { owner } = await seedPostgres(url, COUNTS, 20_000);
    log(`PostgreSQL: ${url}`);
    return { path: url, userId: owner };
  }
  const path = await migratedDb(work, 'requests.db');
  const bare = openBare(path);
  const userId = seedUser(bare, 'owner');
  seedPrivateItems(bare, userId, COUNTS);
  const publicUser = seedUser(bare, 'reader');
  seedPosts(bare, publicUser, 20_000);
  bare.close();
  return { path, userId };
}

const pct = (n: number) => `${(100 * n).toFixed(0)} %`;

async function main() {
  log(
    `seeding ${COUNTS.locations} points, ${COUNTS.posts} posts, ${COUNTS.media} media (private), 20000 public posts...`,
  );
  const { path, userId } = await seed();

  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), '.tmp')}`] : [];
  if (profile.length) mkdirSync('.tmp', { recursive: true });
  const waypost = await start(
    'server.ts',
    [path, join(work, 'data')],
    { BENCH_TOKEN_USER: userId, BENCH_TOKEN_PERMISSIONS: PERMISSIONS, WAYPOST_PUBLIC_CACHE_MB: '0' },
    profile,
  );
  const token = waypost.token!;
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const wayUrl = `http://127.0.0.1:${waypost.port}`;

  // A group with one webhook, so a post queues one delivery (the worker is not running here).
  const service = await fetch(`${wayUrl}/services`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      type: 'webhook',
      name: 'hook',
      config: { url: 'https://hooks.example/in', secret: 'whsec_' + 'A'.repeat(32) },
    }),
  });
  const serviceId = ((await service.json()) as { id: string }).id;
  const group = await fetch(`${wayUrl}/services/groups`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'all' }),
  });
  const groupId = ((await group.json()) as { id: string }).id;
  await fetch(`${wayUrl}/services/groups/${groupId}/${serviceId}`, { method: 'POST', headers: auth });

  // The plain baseline gets a copy of the items, the group and the same token in its own tables.
  const setup = { token: { token, userId, permissions: PERMISSIONS.split(',') } };
  const plain = POSTGRES
    ? await start('plain-server-pg.ts', [path, await plainPostgres(path, setup)], {}, profile)
    : await start(
        'plain-server.ts',
        [(plainSqlite(path, join(work, 'plain.db'), setup), join(work, 'plain.db'))],
        {},
        profile,
      );
  const old = OLD ? await start(POSTGRES ? 'baseline-server-pg.ts' : 'baseline-server.ts', [path]) : undefined;
  const servers = {
    plain: `http://127.0.0.1:${plain.port}`,
    way: wayUrl,
    ...(old ? { old: `http://127.0.0.1:${old.port}` } : {}),
  };
  const pids = { plain: plain.pid, way: waypost.pid, old: old?.pid };
  if (profile.length)
    log(`profiles: .tmp/CPU.*.${waypost.pid}.*.cpuprofile (Waypost), .tmp/CPU.*.${plain.pid}.*.cpuprofile (plain)`);
  type Side = keyof typeof servers;
  const sides = Object.keys(servers) as Side[];

  // A page starts at a random instant, or at a cursor the server gave out for one (each
  // server reads only its own), half and half, so each request reads other rows.
  const randomUntil = (n: number) => () => (BASE_TIME + 100_000 + Math.floor(Math.random() * (n - 100) * 1000)) / 1000;
  const sample = async (url: string) => {
    const response = await fetch(url, { headers: auth });
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    return { body: await response.text(), cursor: /[?&]cursor=([^&>]+)/.exec(response.headers.get('link') ?? '')?.[1] };
  };
  const cursors: Record<string, string[]> = {};
  for (const [kind, n] of KINDS) {
    const until = randomUntil(n)();
    const sizes: string[] = [];
    for (const side of sides) {
      const first = await sample(`${servers[side]}/${kind}/private?count=50&until_time=${until}`);
      sizes.push(`${first.body.length} bytes from ${side}`);
      const pool = (cursors[`${side} ${kind}`] = [] as string[]);
      for (let i = 0; i < 50; i += 1) {
        const { cursor } = await sample(`${servers[side]}/${kind}/private?count=50&until_time=${randomUntil(n)()}`);
        if (cursor) pool.push(cursor);
      }
    }
    log(`${kind}: a page is ${sizes.join(', ')}`);
  }
  const pagePath = (side: Side, kind: string, n: number) => {
    const pool = cursors[`${side} ${kind}`]!;
    return () =>
      Math.random() < 0.5
        ? `/${kind}/private?count=50&until_time=${randomUntil(n)()}`
        : `/${kind}/private?count=50&cursor=${pool[Math.floor(Math.random() * pool.length)]}`;
  };

  const reads: Record<string, Record<Side, Load[]>> = {};
  const writes: Record<string, Record<Side, number[]>> = {};
  const series = () => Object.fromEntries(sides.map((side) => [side, []])) as unknown as Record<Side, never[]>;
  writes.locations = series();
  writes.posts = series();
  let batch = 0;
  // One batch each before the rounds: Waypost's first write folds the cells the seeding logged.
  for (const side of sides) {
    const points = pointBatch(COUNTS.locations + batch++).map((p) => ({ ...p, time: p.time / 1000 }));
    await fetch(`${servers[side]}/locations`, { method: 'POST', headers: json, body: JSON.stringify(points) });
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [kind, n] of KINDS) {
      const entry = (reads[kind] ??= series());
      for (const side of sides) {
        entry[side].push(
          await load(servers[side]!, 10, SECONDS, { headers: auth, path: pagePath(side, kind, n), pid: pids[side] }),
        );
      }
    }
    if (!WRITES) continue;
    // Batches of 1000 new points, each server its own, in turn; every tenth point repeats
    // one already sent, so the uniqueness check drops it.
    for (const side of sides) {
      const bodies = Array.from({ length: BATCHES }, () => {
        const points = pointBatch(COUNTS.locations + batch++).map((p, i, all) => (i % 10 === 9 ? all[i - 1]! : p));
        return JSON.stringify(points.map((p) => ({ ...p, time: p.time / 1000 })));
      });
      const begin = process.hrtime.bigint();
      for (const body of bodies) {
        const response = await fetch(`${servers[side]}/locations`, { method: 'POST', headers: json, body });
        const result = (await response.json()) as { stored: number };
        if (response.status !== 200 || result.stored !== 900)
          throw new Error(`${side} POST /locations: ${response.status}`);
      }
      writes.locations[side].push((BATCHES * 1000) / (Number(process.hrtime.bigint() - begin) / 1e9));
    }
    for (const side of sides) {
      // Private, as the baselines write it: a public post also counts in the person's row (the
      // version public pages are checked against), which serialises public posts on that row.
      const body = JSON.stringify({
        text: 'Out for a walk by the river, back by six.',
        groups: [groupId],
        scope: 'private',
      });
      writes.posts[side].push(await loadPosts(`${servers[side]}/posts`, json, body));
    }
    if (POSTGRES) await analyzePostgres(path);
  }

  const rows: string[] = [];
  const ratios = (way: number[], base: number[]) => {
    const each = way.map((w, i) => w / base[i]!);
    return `${each.map(pct).join(', ')}; median **${pct(median(each))}**`;
  };
  const oldColumns = (cell: string, ratio: string) => (OLD ? ` ${cell} | ${ratio} |` : '');
  for (const [kind, { way, plain, old }] of Object.entries(reads)) {
    const errors = Object.values(reads[kind]!)
      .flat()
      .reduce((sum, l) => sum + l.non2xx, 0);
    const cell = (loads: Load[]) =>
      `${median(loads.map((l) => l.rps)).toFixed(0)} req/s (${spread(loads.map((l) => l.rps))}), p99 ${median(loads.map((l) => l.p99))} ms (${spread(loads.map((l) => l.p99))}), CPU ${median(loads.map((l) => l.cpuMs)).toFixed(2)} ms/req (machine ${median(loads.map((l) => l.machineMs)).toFixed(2)})`;
    const rps = (loads: Load[]) => loads.map((l) => l.rps);
    const p99 = (loads: Load[]) => loads.map((l) => l.p99);
    rows.push(
      `| GET /${kind}/private?count=50, random until_time or cursor, 10 connections | ${cell(way)} | ${cell(plain)} | ${ratios(rps(way), rps(plain))}; p99 x${median(p99(way).map((w, i) => w / p99(plain)[i]!)).toFixed(2)} |` +
        (old ? oldColumns(cell(old), ratios(rps(way), rps(old))) : '') +
        ` errors ${errors} |`,
    );
  }
  const writeRow = (label: string, unit: string, { way, plain, old }: Record<Side, number[]>) => {
    const cell = (values: number[]) => `${median(values).toFixed(0)} ${unit} (${spread(values)})`;
    rows.push(
      `| ${label} | ${cell(way)} | ${cell(plain)} | ${ratios(way, plain)} |` +
        (old ? oldColumns(cell(old), ratios(way, old)) : '') +
        ' |',
    );
  };
  if (WRITES) {
    writeRow(`POST /locations, ${BATCHES} batches of 1000 (10 % duplicates), one client`, 'points/s', writes.locations);
    writeRow('POST /posts to a group of one webhook (202), 10 connections', 'req/s', writes.posts);
  }

  // The public page when no copy is kept: built on every request, beside raw node:http
  // (BENCH_PUBLIC_PAGE=0 leaves it out).
  if (process.env.BENCH_PUBLIC_PAGE !== '0') {
    const pageUrl = `${wayUrl}/posts/public/reader?count=50`;
    const page = Buffer.from(await (await fetch(pageUrl)).arrayBuffer());
    const pageFile = join(work, 'page.json');
    writeFileSync(pageFile, page);
    const raw = await start('raw-server.ts', [pageFile]);
    const pageRounds: { way: Load; raw: Load }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      pageRounds.push({
        raw: await load(`http://127.0.0.1:${raw.port}/`, 10, SECONDS),
        way: await load(pageUrl, 10, SECONDS),
      });
    }
    const pageRatios = pageRounds.map((r) => r.way.rps / r.raw.rps);
    rows.push(
      `| GET /posts/public/<u>?count=50 built on every request (no copies) | ${median(pageRounds.map((r) => r.way.rps)).toFixed(0)} req/s (${spread(pageRounds.map((r) => r.way.rps))}) | raw node:http, same ${page.length} bytes: ${median(pageRounds.map((r) => r.raw.rps)).toFixed(0)} req/s | ${pageRatios.map(pct).join(', ')}; median ${pct(median(pageRatios))} | |`,
    );
  }
  log(
    `| Request | Waypost | plain baseline | Waypost / plain, per round |${OLD ? " old baseline (Waypost's tables and token storage) | Waypost / old |" : ''} |`,
  );
  log(`|---|---|---|---|${OLD ? '---|---|' : ''}---|`);
  for (const row of rows) log(row);
}

/** POST /posts under load: req/s of 202 answers. */
async function loadPosts(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({ url, method: 'POST', headers, body, connections: 10, duration: SECONDS });
  if (result.non2xx + result.errors > 0)
    throw new Error(`POST /posts: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const cleanup of cleanups) await cleanup();
  rmSync(work, { recursive: true, force: true });
}
