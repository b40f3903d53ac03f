// `npm run bench:map`: the web app's Map page in Chromium (playwright-core, Debian's chromium,
// as the browser tests run it) over one person's history of BENCH_POINTS points (default
// 1,000,000; the history of bench/history-seed.ts), on SQLite, without a basemap (offline).
// The server runs in its own process (bench/server.ts). Each of BENCH_ROUNDS rounds (default 3)
// signs in through the pages in a fresh browser context (empty cache), opens /app/map and
// measures, on the page's own clock (performance.now(), from the navigation's start):
//   first points drawn: the map's first idle with points on screen, which the page reports in
//     data-map-state="ready" and data-points-drawn (src/web/map/waypost-map.js); also when
//     the first tile arrived;
//   then a scripted sequence: zoom out to z2 (keyboard, two levels a key), then z2 to z16 and
//     back to z2 one level a key, with a loop of four mouse drags at every level, each move
//     waited for until the map is idle again;
//   long tasks ('longtask' PerformanceObserver: main-thread tasks over 50 ms) during the
//     sequence: count, longest, p99, how many over 200 ms, and the blocking time past 50 ms;
//     and how long the map took to settle after a move (idle again, from the key or the mouse
//     button let go), median and longest.
// The baseline, in each round: the same page, moves and (empty) tiles on a range without points,
// which is what the browser, software WebGL and the machine cost without the history.
// Medians and spread over the rounds, printed as Markdown table rows. Nothing is asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { hashPassword } from '../src/users/passwords.ts';
import { CHROMIUM, signInThroughPage } from '../test/web.ts';
import { children, log, median, spread, start } from './harness.ts';
import { seedHistory } from './history-seed.ts';
import { openBare } from './seed.ts';

const POINTS = Number(process.env.BENCH_POINTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OPEN_ZOOM = 11; // the Map page's own opening zoom (src/web/map/map.page.ts)
const LOW = 2;
const HIGH = 16;
const PASSWORD = 'map bench password';
const WAIT_MS = 120_000;
/** A range after the history: the same page, moves and empty tiles, no points. */
const EMPTY_FROM = '2030-01-01';
const work = mkdtempSync(join(tmpdir(), 'waypost-map-'));

/**
 * What the page records for the bench, installed before any of its scripts run. The waits are
 * promises in the page: the page's Content-Security-Policy forbids the eval that
 * waitForFunction with a string needs.
 */
const RECORDER = `(() => {
  const bench = { longTasks: [], drawnAt: undefined, drawn: 0, readyAt: 0, inputAt: 0, waiting: [] };
  window.__bench = bench;
  // The last key or mouse button let go: where a move's settling starts.
  for (const type of ['keyup', 'mouseup']) addEventListener(type, () => (bench.inputAt = performance.now()), true);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) bench.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  const map = () => document.querySelector('[data-waypost-map]');
  new MutationObserver(() => {
    const element = map();
    if (!element || element.dataset.mapState !== 'ready') return;
    bench.readyAt = performance.now();
    if (bench.drawnAt === undefined && Number(element.dataset.pointsDrawn) > 0) {
      bench.drawnAt = bench.readyAt;
      bench.drawn = Number(element.dataset.pointsDrawn);
    }
    for (const resolve of bench.waiting.splice(0)) resolve();
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-map-state'] });
  const until = (done) =>
    new Promise((resolve) => {
      const check = () => (done() ? resolve() : bench.waiting.push(check));
      check();
    });
  /** Marks the map as moving; the next idle marks it ready again. */
  bench.moving = () => {
    map().dataset.mapState = 'moving';
  };
  bench.ready = () => until(() => map()?.dataset.mapState === 'ready');
  bench.drawnFirst = () => until(() => bench.drawnAt !== undefined);
})();`;

interface LongTask {
  start: number;
  duration: number;
}

interface Round {
  drawnMs: number;
  firstTileMs: number;
  drawn: number;
  openingLongest: number;
  count: number;
  longest: number;
  p99: number;
  over200: number;
  blockingMs: number;
  settleMedian: number;
  settleLongest: number;
  sequenceS: number;
  moves: number;
  zooms: string;
  pointsAtHigh: number;
}

const p99 = (values: number[]) =>
  values.length === 0
    ? 0
    : [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]!;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `promise`, or an error after WAIT_MS. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `move` and waits until the map is idle again; ms from the last input of the move (a key
 * or the mouse button let go) to the idle, on the page's clock. */
async function settled(page: Page, move: () => Promise<void>): Promise<number> {
  await page.evaluate('window.__bench.moving()');
  await move();
  await within(page.evaluate('window.__bench.ready()'), 'the map to be idle after a move');
  return page.evaluate<number>('window.__bench.readyAt - window.__bench.inputAt');
}

/** One round on /app/map; `empty` opens it on a range without points (the baseline). */
async function round(browser: Browser, base: string, username: string, empty: boolean): Promise<Round> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const foreign: string[] = [];
  const zooms = new Set<number>();
  let firstTileAt = 0;
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol.startsWith('http') && url.host !== new URL(base).host) foreign.push(url.origin);
    const tile = /\/tiles\/(\d+)\/\d+\/\d+\.mvt$/.exec(url.pathname);
    if (tile) zooms.add(Number(tile[1]));
  });
  // Tiles are fetched by MapLibre's worker, whose resource timings the page does not see.
  page.on('requestfinished', (request) => {
    if (firstTileAt === 0 && request.url().includes('.mvt')) firstTileAt = Date.now();
  });
  await signInThroughPage(page, base, username, PASSWORD);
  await page.addInitScript(RECORDER);
  await page.goto(`${base}/app/map${empty ? `?from=${EMPTY_FROM}` : ''}`);
  await within(page.evaluate(empty ? 'window.__bench.ready()' : 'window.__bench.drawnFirst()'), 'the first points');
  const opening = await page.evaluate<{ drawnAt: number; drawn: number; longTasks: LongTask[]; origin: number }>(`({
    drawnAt: window.__bench.drawnAt ?? window.__bench.readyAt,
    drawn: window.__bench.drawn,
    longTasks: window.__bench.longTasks.slice(),
    origin: performance.timeOrigin,
  })`);

  // The scripted sequence, by keyboard (MapLibre: '-' and '=' a level, with Shift two) and drags.
  const canvas = page.locator('[data-waypost-map] canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
  // A loop of drags that ends where it began, each staying on the map: released outside it, a
  // drag did not always end (MapLibre under Playwright's mouse) and the map never went idle.
  const loop = [
    [box.width * 0.3, box.height * 0.4],
    [-box.width * 0.3, -box.height * 0.4],
  ] as const;
  const settles: number[] = [];
  const key = async (name: string) => {
    await canvas.focus();
    settles.push(await settled(page, () => page.keyboard.press(name)));
  };
  const pans = async () => {
    for (const [dx, dy] of loop) {
      settles.push(
        await settled(page, async () => {
          await page.mouse.move(cx, cy);
          await page.mouse.down();
          await page.mouse.move(cx + dx, cy + dy, { steps: 8 });
          // Held still before letting go: no fling (MapLibre's inertia reads the last 160 ms).
          await new Promise((resolve) => setTimeout(resolve, 200));
          await page.mouse.up();
        }),
      );
    }
  };
  const sequenceBegin = await page.evaluate<number>('performance.now()');
  let zoom = OPEN_ZOOM;
  for (; zoom - LOW >= 2; zoom -= 2) await key('Shift+Minus');
  for (; zoom > LOW; zoom -= 1) await key('Minus');
  for (; zoom < HIGH; zoom += 1) {
    await pans();
    await key('Equal');
  }
  await pans();
  const pointsAtHigh = Number(await page.locator('[data-waypost-map]').getAttribute('data-points-drawn'));
  for (; zoom > LOW; zoom -= 1) {
    await key('Minus');
    await pans();
  }
  const after = await page.evaluate<{ now: number; longTasks: LongTask[] }>(`({
    now: performance.now(),
    longTasks: window.__bench.longTasks.filter((task) => task.start >= ${sequenceBegin}),
  })`);
  await context.close();
  if (foreign.length > 0) throw new Error(`requests left the machine: ${[...new Set(foreign)].join(', ')}`);

  const durations = after.longTasks.map((task) => task.duration);
  return {
    drawnMs: opening.drawnAt,
    firstTileMs: firstTileAt - opening.origin,
    drawn: opening.drawn,
    openingLongest: Math.max(0, ...opening.longTasks.map((task) => task.duration)),
    count: durations.length,
    longest: Math.max(0, ...durations),
    p99: p99(durations),
    over200: durations.filter((duration) => duration > 200).length,
    blockingMs: durations.reduce((sum, duration) => sum + duration - 50, 0),
    settleMedian: median(settles),
    settleLongest: Math.max(...settles),
    sequenceS: (after.now - sequenceBegin) / 1000,
    moves: settles.length,
    zooms: `${Math.min(...zooms)}-${Math.max(...zooms)}`,
    pointsAtHigh,
  };
}

async function main() {
  log(`# The Map page in Chromium, ${POINTS.toLocaleString('en')} points, SQLite, no basemap, ${ROUNDS} rounds`);
  const path = join(work, 'map.db');
  const { userId, seedSeconds, migrationSeconds } = await seedHistory(path, POINTS);
  log(
    `seeded: ${seedSeconds.toFixed(1)} s (${Math.round(POINTS / seedSeconds).toLocaleString('en')} points/s), ` +
      `then the migrations over them: ${migrationSeconds.toFixed(1)} s`,
  );
  // The seeded user signs in through the pages: a password like any account's, at a cheap cost.
  const db = openBare(path);
  const hash = await hashPassword(PASSWORD, { log2N: 10, r: 8, p: 1 });
  db.prepare('update users set password_hash = ? where id = ?').run(hash, userId);
  const { username } = db.prepare('select username from users where id = ?').get(userId) as { username: string };
  db.close();

  const port = await freePort();
  await start('server.ts', [path, join(work, 'data')], { BENCH_PORT: String(port), WAYPOST_MAP_STYLE: 'none' });
  const base = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch(CHROMIUM);
  const rounds: Round[] = [];
  const baselines: Round[] = [];
  const describe = (name: string, result: Round) =>
    log(
      `${name}: first ${result.drawn > 0 ? 'points' : 'idle'} ${result.drawnMs.toFixed(0)} ms (first tile ${result.firstTileMs.toFixed(0)} ms, ` +
        `${result.drawn.toLocaleString('en')} points on screen, longest task while opening ${result.openingLongest.toFixed(0)} ms); ` +
        `${result.moves} moves in ${result.sequenceS.toFixed(0)} s over tile zooms ${result.zooms} ` +
        `(${result.pointsAtHigh.toLocaleString('en')} points on screen at z${HIGH}): ` +
        `${result.count} long tasks, longest ${result.longest.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms, ` +
        `${result.over200} over 200 ms, blocking ${result.blockingMs.toFixed(0)} ms; ` +
        `settled after a move in ${result.settleMedian.toFixed(0)} ms (median), ${result.settleLongest.toFixed(0)} ms (longest)`,
    );
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      rounds.push(await round(browser, base, username, false));
      describe(`round ${i + 1}`, rounds.at(-1)!);
      baselines.push(await round(browser, base, username, true));
      describe(`round ${i + 1}, baseline without points`, baselines.at(-1)!);
    }
  } finally {
    await browser.close();
  }
  const cell = (of: Round[], pick: (r: Round) => number, unit = '') => {
    const values = of.map(pick);
    return `${median(values).toFixed(0)}${unit} (${spread(values)})`;
  };
  const row = (name: string, of: Round[], opening: string) =>
    log(
      `| ${name} | ${opening} ${cell(of, (r) => r.drawnMs, ' ms')} | ${cell(of, (r) => r.firstTileMs, ' ms')} | ` +
        `${cell(of, (r) => r.count)} | ${cell(of, (r) => r.longest, ' ms')} | ${cell(of, (r) => r.p99, ' ms')} | ` +
        `${cell(of, (r) => r.over200)} | ${cell(of, (r) => r.blockingMs, ' ms')} | ` +
        `${cell(of, (r) => r.settleMedian, ' ms')} / ${cell(of, (r) => r.settleLongest, ' ms')} |`,
    );
  log('');
  log(
    '| Map page, SQLite | Opening | First tile | Long tasks in the sequence | Longest | p99 | Over 200 ms | Blocking past 50 ms | Settle after a move, median / longest |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  row(`${POINTS.toLocaleString('en')} points`, rounds, 'points drawn');
  row('baseline: same moves, a range without points', baselines, 'idle');
}

try {
  await main();
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
