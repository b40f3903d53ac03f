// `npm run bench`: collection pages and batches of points, each beside its baseline in the same run.
// Servers run in their own processes; this process is the client, on loopback. Bounded in
// time (BENCH_SECONDS per load run, BENCH_ROUNDS rounds of the page goal) and count (BENCH_POSTS
// posts, BENCH_BATCHES batches). Numbers are printed, and recorded by hand in BENCHMARKS.md;
// nothing here asserts them.
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { children, load as loadFor, log, median, migratedDb as migratedIn, start, type Load } from './harness.ts';
import { bareInsert, openBare, pointBatch, seedPosts, seedUser } from './seed.ts';

const POSTS = Number(process.env.BENCH_POSTS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DEPTH = Math.min(900_000, Math.floor(POSTS * 0.9));
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-'));
const migratedDb = (name: string) => migratedIn(work, name);
const load = (url: string, connections: number) => loadFor(url, connections, SECONDS);

/** Median latency in ms of `count` sequential requests, each URL in turn, precise clock. */
async function medians(urls: string[], count: number): Promise<number[]> {
  const samples = urls.map(() => [] as number[]);
  for (let i = 0; i < count; i += 1) {
    for (const [index, url] of urls.entries()) {
      const begin = process.hrtime.bigint();
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      samples[index]!.push(Number(process.hrtime.bigint() - begin) / 1e6);
    }
  }
  return samples.map(median);
}

async function pagesBenchmark() {
  log(`seeding ${POSTS} posts...`);
  const path = await migratedDb('posts.db');
  const bare = openBare(path);
  const userId = seedUser(bare, 'reader');
  seedPosts(bare, userId, POSTS);
  // OFFSET only here, to find the key 900k deep once; the server pages by keyset.
  const deep = bare
    .prepare(`select time, id from posts where user_id = ? order by time desc, id desc limit 1 offset ?`)
    .get(userId, DEPTH - 1) as { time: number; id: string };
  bare.close();
  const cursor = Buffer.from(JSON.stringify([deep.time, deep.id])).toString('base64url');

  const waypost = await start('server.ts', [path, join(work, 'data-posts')]);
  const pageUrl = `http://127.0.0.1:${waypost.port}/posts/public/reader?count=50`;
  const first = await fetch(pageUrl);
  const page = Buffer.from(await first.arrayBuffer());
  const pageFile = join(work, 'page.json');
  writeFileSync(pageFile, page);
  const raw = await start('raw-server.ts', [pageFile]);
  // The headers Waypost sent, but those node:http writes itself and the per-request id.
  const headers = Object.fromEntries(first.headers);
  for (const name of ['date', 'connection', 'keep-alive', 'content-length', 'x-request-id']) delete headers[name];
  const headersFile = join(work, 'headers.json');
  writeFileSync(headersFile, JSON.stringify(headers));
  const rawWithHeaders = await start('raw-server.ts', [pageFile, headersFile]);

  log(
    `page: ${page.length} bytes; load: ${SECONDS} s each after a warm-up, 10 connections, ${ROUNDS} rounds of raw, Waypost, raw with headers`,
  );
  // Rounds, each target in turn, and the median of each round's ratio: on a shared machine
  // the speed of the whole machine drifts within a run by more than the gap being measured,
  // and a drift between two long runs in a row would land on one side of the ratio.
  const rounds: { raw: Load; waypost: Load; withHeaders: Load }[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    rounds.push({
      raw: await load(`http://127.0.0.1:${raw.port}/`, 10),
      waypost: await load(pageUrl, 10),
      withHeaders: await load(`http://127.0.0.1:${rawWithHeaders.port}/`, 10),
    });
  }
  const each = (pick: (round: (typeof rounds)[number]) => number) =>
    rounds
      .map(pick)
      .map((n) => n.toFixed(0))
      .join(', ');
  const percent = (n: number) => `${(100 * n).toFixed(0)} %`;
  const pageRatio = median(rounds.map((r) => r.waypost.rps / r.raw.rps));
  const errors = rounds.reduce((sum, r) => sum + r.waypost.non2xx + r.raw.non2xx + r.withHeaders.non2xx, 0);
  log(
    `| GET /posts/public/<u>?count=50 (${POSTS} posts) | ${each((r) => r.waypost.rps)} req/s, p99 ${each((r) => r.waypost.p99)} ms | raw node:http same bytes: ${each((r) => r.raw.rps)} req/s, p99 ${each((r) => r.raw.p99)} ms | rounds ${rounds.map((r) => percent(r.waypost.rps / r.raw.rps)).join(', ')}; median ${percent(pageRatio)} (goal >= 60 %) | errors ${errors} |`,
  );
  log(
    `| context: raw node:http, same bytes and Waypost's ${Object.keys(headers).length + 1} headers | ${each((r) => r.withHeaders.rps)} req/s | | median ${percent(median(rounds.map((r) => r.withHeaders.rps / r.raw.rps)))} of raw; Waypost at median ${percent(median(rounds.map((r) => r.waypost.rps / r.withHeaders.rps)))} of it | |`,
  );
  const rawRps = median(rounds.map((r) => r.raw.rps));

  // Context, not goals: the same page when every request asks the database for the version
  // (a copy, but no replay), and when every request builds the page; and the app's cheapest
  // route, to show how much of the gap to raw node:http is the framework and its hooks.
  const pathFor = (port: number) => `http://127.0.0.1:${port}/posts/public/reader?count=50`;
  const asking = await start('server.ts', [path, join(work, 'data-asking')], {
    WAYPOST_PUBLIC_CACHE_REVALIDATE_MS: '0',
  });
  const building = await start('server.ts', [path, join(work, 'data-building')], { WAYPOST_PUBLIC_CACHE_MB: '0' });
  const context = [
    ['the same page, the version read on every request (revalidate 0)', pathFor(asking.port)],
    ['the same page, built on every request (no copies)', pathFor(building.port)],
    ['GET /healthz on the first server', `http://127.0.0.1:${waypost.port}/healthz`],
  ] as const;
  for (const [label, url] of context) {
    const result = await load(url, 10);
    log(
      `| context: ${label} | ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms | | ${((100 * result.rps) / rawRps).toFixed(0)} % of raw (median) | errors ${result.non2xx} |`,
    );
  }

  // On the server without copies: this measures the query at depth, not the copies.
  const built = pathFor(building.port);
  const [startMs, deepMs] = await medians([built, `${built}&cursor=${cursor}`], 1000);
  log(
    `| same page at the start vs ${DEPTH} deep, built each time, median of 1000 sequential each | ${startMs!.toFixed(3)} ms vs ${deepMs!.toFixed(3)} ms | ratio ${(deepMs! / startMs!).toFixed(2)} (goal <= 1.2) |`,
  );
  const [profileMs] = await medians([`http://127.0.0.1:${waypost.port}/users/reader`], 20);
  log(
    `| context: GET /users/<u> (${POSTS} public posts, counts kept on the row), median of 20 | ${profileMs!.toFixed(1)} ms | | | |`,
  );
}

async function locationsBenchmark() {
  const batches = Array.from({ length: BATCHES }, (_, b) => pointBatch(b));
  const total = BATCHES * 1000;

  const barePath = await migratedDb('bare.db');
  const bare = openBare(barePath);
  const bareUser = seedUser(bare, 'walker');
  let begin = process.hrtime.bigint();
  bareInsert(bare, bareUser, batches);
  const bareSeconds = Number(process.hrtime.bigint() - begin) / 1e9;
  bare.close();

  const path = await migratedDb('locations.db');
  const seed = openBare(path);
  const userId = seedUser(seed, 'walker');
  seed.close();
  const server = await start('server.ts', [path, join(work, 'data-locations')], { BENCH_TOKEN_USER: userId });
  const url = `http://127.0.0.1:${server.port}/locations`;
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const bodies = batches.map((points) => JSON.stringify(points.map((p) => ({ ...p, time: p.time / 1000 }))));
  begin = process.hrtime.bigint();
  for (const body of bodies) {
    const response = await fetch(url, { method: 'POST', headers, body });
    const result = (await response.json()) as { stored: number };
    if (response.status !== 200 || result.stored !== 1000) throw new Error(`POST /locations: ${response.status}`);
  }
  const waySeconds = Number(process.hrtime.bigint() - begin) / 1e9;
  const wayRate = total / waySeconds;
  const bareRate = total / bareSeconds;
  log(
    `| POST /locations, ${BATCHES} batches of 1000, one client | ${wayRate.toFixed(0)} points/s | bare better-sqlite3 loop, same rows: ${bareRate.toFixed(0)} points/s | ${((100 * wayRate) / bareRate).toFixed(0)} % (goal >= 30 %) |`,
  );
}

try {
  await pagesBenchmark();
  await locationsBenchmark();
} finally {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
}
