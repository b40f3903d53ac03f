// `npm run bench:visits`: visits and trips (src/visits/detect.ts) against a simulated truth
// (bench/visits-sim.ts), beside the baseline (bench/visits-baseline.ts), and the speed and
// memory of detection over ten million points. Knobs: BENCH_SEEDS (default 5) runs of
// BENCH_DAYS (default 28) for each row; BENCH_POINTS (default 10,000,000) for the speed run,
// BENCH_ROUNDS (default 3) rounds of it, each in child processes of its own (generating only,
// then generating and detecting) so each peak RSS is its own. `npm run bench:visits -- accuracy` or `-- speed` runs one half.
// Scores, for each row the median over seeds and the spread (lowest-highest):
// - found: of the true stays of 10 minutes or more (but the first and last, cut by the edges of
//   the simulation), the share with a visit whose start and end are each within 3 minutes of
//   the truth and whose centre is within 100 m of the place (goal >= 95 %);
// - false: the share of visits not spending at least half their time at a true stay within
//   250 m of their centre (goal <= 5 %): no stay there at all. A real stay found with its
//   centre 100-250 m off is not false, but not found either;
// - distance: of trips that truly moved 500 m or more, the median error of the distance
//   against the true way between the true stays its two visits match (or its own start and end
//   where it begins or ends at a gap), and the share within 5 % (goal);
// - mode: of those trips, the share whose mode is the truth's (the mode of most of the
//   distance), and the share said `unknown`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { distanceM } from '../src/lib/distance.ts';
import { createDetector, detect, type Mode } from '../src/visits/detect.ts';
import { baseline } from './visits-baseline.ts';
import { simulate, simulateActivities, type SimOptions, type Simulation } from './visits-sim.ts';

const SEEDS = Number(process.env.BENCH_SEEDS ?? 5);
const DAYS = Number(process.env.BENCH_DAYS ?? 28);
const POINTS = Number(process.env.BENCH_POINTS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const log = (line: string) => process.stdout.write(`${line}\n`);
const MIN = 60_000;

interface Found {
  visits: { start: number; end: number; lat: number; lon: number }[];
  trips: {
    start: number;
    end: number;
    distanceM: number;
    mode: Mode;
    fromIndex?: number | null;
    toIndex?: number | null;
  }[];
}

export interface Score {
  found: number;
  falseShare: number;
  distanceError: number;
  within5: number;
  mode: number;
  unknown: number;
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

/**
 * Each trip that truly moved 500 m or more, with its distance's relative error and the true
 * mode. A trip goes from one stay's centre to the next: the truth is the way between the true
 * stays its visits match (where it begins or ends at a gap, its own start or end).
 */
export function tripErrors(sim: Simulation, result: Found): { error: number; truthMode: Mode; mode: Mode }[] {
  /** The true stay a visit spent most of its time at, if any. */
  const stayOf = (index: number | null | undefined) => {
    const visit = index == null ? undefined : result.visits[index];
    if (!visit) return undefined;
    let best: (typeof sim.stays)[number] | undefined;
    for (const stay of sim.stays) if (overlap(visit, stay) > (best ? overlap(visit, best) : 0)) best = stay;
    return best;
  };
  const errors = [];
  for (const trip of result.trips) {
    const from = Math.min(stayOf(trip.fromIndex)?.end ?? trip.start, trip.start);
    const to = Math.max(stayOf(trip.toIndex)?.start ?? trip.end, trip.end);
    const truth = sim.movedM(from, to);
    if (truth < 500) continue;
    errors.push({ error: (trip.distanceM - truth) / truth, truthMode: sim.modeBetween(from, to), mode: trip.mode });
  }
  return errors;
}

export function score(sim: Simulation, result: Found): Score {
  const scored = sim.stays.slice(1, -1).filter((s) => s.end - s.start >= 10 * MIN);
  const found = scored.filter((stay) =>
    result.visits.some(
      (v) =>
        Math.abs(v.start - stay.start) <= 3 * MIN && Math.abs(v.end - stay.end) <= 3 * MIN && distanceM(v, stay) <= 100,
    ),
  ).length;
  const falseVisits = result.visits.filter((v) => {
    const atStays = sim.stays.filter((s) => distanceM(v, s) <= 250).reduce((sum, s) => sum + overlap(v, s), 0);
    return atStays < 0.5 * (v.end - v.start);
  }).length;
  const errors: number[] = [];
  let right = 0;
  let unknown = 0;
  for (const { error, truthMode, mode } of tripErrors(sim, result)) {
    errors.push(Math.abs(error));
    if (mode === truthMode) right += 1;
    if (mode === 'unknown') unknown += 1;
  }
  const share = (n: number, of: number) => (of ? (100 * n) / of : 0);
  return {
    found: share(found, scored.length),
    falseShare: share(falseVisits, result.visits.length),
    distanceError: 100 * median(errors),
    within5: share(errors.filter((e) => e <= 0.05).length, errors.length),
    mode: share(right, errors.length),
    unknown: share(unknown, errors.length),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const cell = (values: number[], digits = 1) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

function row(label: string, options: Omit<SimOptions, 'seed' | 'days'>) {
  const ours: Score[] = [];
  const theirs: Score[] = [];
  for (let seed = 1; seed <= SEEDS; seed += 1) {
    const sim = simulate({ ...options, seed, days: DAYS });
    ours.push(score(sim, detect(sim.points)));
    theirs.push(score(sim, baseline(sim.points)));
  }
  for (const [who, scores] of [
    ['Waypost', ours],
    ['Li 2008', theirs],
  ] as const) {
    const pick = (key: keyof Score) => cell(scores.map((s) => s[key]));
    log(
      `| ${label} | ${who} | ${pick('found')} | ${pick('falseShare')} | ${pick('distanceError')} | ${pick('within5')} | ${pick('mode')} | ${pick('unknown')} |`,
    );
  }
}

function accuracy() {
  log(`${SEEDS} seeds of ${DAYS} days each; median (lowest-highest) over seeds; shares in %`);
  log(
    '| sampling, noise | method | stays found | visits false | distance error | trips within 5 % | mode right | mode unknown |',
  );
  log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  row('phone (10 s-5 min), x1', {});
  row('phone, x2', { noise: 2 });
  for (const interval of [30, 120, 300]) {
    row(`${interval} s, x1`, { interval });
    row(`${interval} s, x2`, { interval, noise: 2 });
  }
  row('phone, x1, two trackers', { trackers: 2 });
  row('phone, x1, 5 % outliers', { outliers: 0.05 });
}

/** Peak resident memory of this process, MB (the kernel's high-water mark). */
function peakRssMb(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** In a child: streams POINTS simulated points (one tracker, every 10-30 s while awake), detecting or not, one at a time. */
function speedChild(detecting: boolean) {
  const detector = createDetector();
  let points = 0;
  let visits = 0;
  let trips = 0;
  let first = NaN;
  let last = NaN;
  const begin = process.hrtime.bigint();
  for (const { points: batch } of simulateActivities({ seed: 1, days: 100_000, interval: 20 })) {
    for (const point of batch) {
      first = Number.isNaN(first) ? point.time : first;
      last = point.time;
      if (detecting) {
        const done = detector.push(point);
        if (done) [visits, trips] = [visits + done.visits.length, trips + done.trips.length];
      }
      if (++points >= POINTS) break;
    }
    if (points >= POINTS) break;
  }
  if (detecting) {
    const done = detector.flush();
    [visits, trips] = [visits + done.visits.length, trips + done.trips.length];
  }
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  const years = (last - first) / (365.25 * 86_400_000);
  log(JSON.stringify({ points, years, visits, trips, seconds, peakRssMb: peakRssMb() }));
}

function speed() {
  type Run = { points: number; years: number; visits: number; trips: number; seconds: number; peakRssMb: number };
  const run = (what: string): Run => {
    const child = spawnSync(process.execPath, [import.meta.filename, 'speed-child', what], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    return JSON.parse(child.stdout) as Run;
  };
  // Rounds, each way in turn, so a drift of the machine's speed lands on both.
  const generated: Run[] = [];
  const detected: Run[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    generated.push(run('generate'));
    detected.push(run('detect'));
  }
  const first = detected[0]!;
  log(
    `${first.points} points (one tracker every 10-30 s while awake), ${first.years.toFixed(1)} years; ${ROUNDS} rounds`,
  );
  log(`| what | seconds | peak RSS MB | visits | trips |`);
  log(`| --- | --- | --- | --- | --- |`);
  for (const [label, runs] of [
    ['simulating only (baseline)', generated],
    ['simulating and detecting', detected],
  ] as const) {
    log(
      `| ${label} | ${cell(runs.map((r) => r.seconds))} | ${cell(
        runs.map((r) => r.peakRssMb),
        0,
      )} | ${runs[0]!.visits} | ${runs[0]!.trips} |`,
    );
  }
  const net = detected.map((r, i) => r.seconds - generated[i]!.seconds);
  log(
    `detection alone: ${cell(net)} s, ${cell(
      net.map((s) => (1e6 * s) / first.points),
      2,
    )} µs a point`,
  );
}

const [what, arg] = process.argv.slice(2);
if (!import.meta.main) {
  // Imported for its scores.
} else if (what === 'speed-child') speedChild(arg === 'detect');
else {
  if (what !== 'speed') accuracy();
  if (what !== 'accuracy') speed();
}
