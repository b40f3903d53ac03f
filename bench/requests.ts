// `npm run bench:requests`: what a person's own apps pay per request, beside a hand-written
// server doing the same work on the same database (bench/baseline-server.ts), in alternating
// rounds, and the public page built on every request beside raw node:http serving its bytes.
// SQLite, or PostgreSQL with BENCH_DATABASE_URL=postgres://user@host:port (a fresh database is
// made there and dropped after). Bounded: BENCH_SECONDS per load (default 5), BENCH_ROUNDS rounds (default 3),
// BENCH_BATCHES batches of 1000 points per round (default 20). Numbers are printed; nothing
// here asserts them. BENCH_PROFILE=1 writes a CPU profile of the Waypost server to .tmp/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { children, load, log, median, migratedDb, spread, start, type Load } from './harness.ts';
import { BASE_TIME, openBare, pointBatch, seedPosts, seedPrivateItems, seedUser } from './seed.ts';
import { analyzePostgres, freshPostgres, seedPostgres } from './seed-pg.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const COUNTS = { locations: 200_000, posts: 100_000, media: 20_000 };
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-requests-'));
const PERMISSIONS = 'get_private_scope,write_locations,create_post,create_service,manage_groups';

const POSTGRES = process.env.BENCH_DATABASE_URL;
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
  const baseline = await start(POSTGRES ? 'baseline-server-pg.ts' : 'baseline-server.ts', [path]);
  const token = waypost.token!;
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const wayUrl = `http://127.0.0.1:${waypost.port}`;
  const baseUrl = `http://127.0.0.1:${baseline.port}`;

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

  // Every page of a random instant, so each request reads other rows.
  const randomUntil = (n: number) => () => (BASE_TIME + 100_000 + Math.floor(Math.random() * (n - 100) * 1000)) / 1000;
  const pagePath = (kind: string, n: number) => () => `/${kind}/private?count=50&until_time=${randomUntil(n)()}`;

  const sample = async (url: string) => (await fetch(url, { headers: auth })).text();
  const until = randomUntil(COUNTS.posts)();
  for (const kind of ['locations', 'posts', 'media']) {
    const [a, b] = [
      await sample(`${wayUrl}/${kind}/private?count=50&until_time=${until}`),
      await sample(`${baseUrl}/${kind}/private?count=50&until_time=${until}`),
    ];
    log(`${kind}: a page is ${a.length} bytes from Waypost, ${b.length} from the baseline`);
  }

  const reads: Record<string, { way: Load[]; base: Load[] }> = {};
  const writes: Record<string, { way: number[]; base: number[] }> = {
    locations: { way: [], base: [] },
    posts: { way: [], base: [] },
  };
  let batch = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [kind, n] of Object.entries(COUNTS)) {
      const entry = (reads[kind] ??= { way: [], base: [] });
      entry.base.push(await load(baseUrl, 10, SECONDS, { headers: auth, path: pagePath(kind, n) }));
      entry.way.push(await load(wayUrl, 10, SECONDS, { headers: auth, path: pagePath(kind, n) }));
    }
    // Batches of 1000 new points, each server its own, alternating; every tenth point repeats
    // one already sent, so the uniqueness check drops it.
    for (const [side, url] of [
      ['base', baseUrl],
      ['way', wayUrl],
    ] as const) {
      const bodies = Array.from({ length: BATCHES }, () => {
        const points = pointBatch(COUNTS.locations + batch++).map((p, i, all) => (i % 10 === 9 ? all[i - 1]! : p));
        return JSON.stringify(points.map((p) => ({ ...p, time: p.time / 1000 })));
      });
      const begin = process.hrtime.bigint();
      for (const body of bodies) {
        const response = await fetch(`${url}/locations`, { method: 'POST', headers: json, body });
        const result = (await response.json()) as { stored: number };
        if (response.status !== 200 || result.stored !== 900)
          throw new Error(`${side} POST /locations: ${response.status}`);
      }
      writes.locations![side].push((BATCHES * 1000) / (Number(process.hrtime.bigint() - begin) / 1e9));
    }
    for (const [side, url] of [
      ['base', baseUrl],
      ['way', wayUrl],
    ] as const) {
      // Private, as the baseline writes it: a public post also counts in the person's row (the
      // version public pages are checked against), which serialises public posts on that row.
      const body = JSON.stringify({
        text: 'Out for a walk by the river, back by six.',
        groups: [groupId],
        scope: 'private',
      });
      const result = await loadPosts(`${url}/posts`, json, body);
      writes.posts![side].push(result);
    }
    if (POSTGRES) await analyzePostgres(path);
  }

  const rows: string[] = [];
  for (const [kind, { way, base }] of Object.entries(reads)) {
    const ratios = way.map((w, i) => w.rps / base[i]!.rps);
    const errors = [...way, ...base].reduce((sum, l) => sum + l.non2xx, 0);
    rows.push(
      `| GET /${kind}/private?count=50&until_time=<random>, 10 connections | ${median(way.map((l) => l.rps)).toFixed(0)} req/s (${spread(way.map((l) => l.rps))}), p99 ${median(way.map((l) => l.p99))} ms (${spread(way.map((l) => l.p99))}) | ${median(base.map((l) => l.rps)).toFixed(0)} req/s (${spread(base.map((l) => l.rps))}), p99 ${median(base.map((l) => l.p99))} ms | ${ratios.map(pct).join(', ')}; median ${pct(median(ratios))} | errors ${errors} |`,
    );
  }
  const writeRow = (label: string, unit: string, { way, base }: { way: number[]; base: number[] }) => {
    const ratios = way.map((w, i) => w / base[i]!);
    rows.push(
      `| ${label} | ${median(way).toFixed(0)} ${unit} (${spread(way)}) | ${median(base).toFixed(0)} ${unit} (${spread(base)}) | ${ratios.map(pct).join(', ')}; median ${pct(median(ratios))} | |`,
    );
  };
  writeRow(`POST /locations, ${BATCHES} batches of 1000 (10 % duplicates), one client`, 'points/s', writes.locations!);
  writeRow('POST /posts to a group of one webhook (202), 10 connections', 'req/s', writes.posts!);

  // The public page when no copy is kept: built on every request, beside raw node:http.
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
  log('| Request | Waypost | baseline | ratio per round | |');
  log('|---|---|---|---|---|');
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
