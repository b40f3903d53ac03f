// A simulated location history with known truth, for scoring visit and trip detection
// (bench/visits-accuracy.ts, src/visits/detect.test.ts). The life is bench/visits-plan.ts; here
// trackers record it as phones do:
// - sampling: `interval` seconds while moving (0.5-1.5 times it each time), or 'phone': 10 s to
//   5 min, log-uniform; intervals 1.5 times as long while still;
// - sleep: after 5-20 minutes still, a phone often stops reporting until it moves again, and
//   wakes 20 s to 3 min after leaving (at home at night nearly always);
// - noise: an error that drifts (first-order autoregressive, 2 minutes indoors, 30 s outside)
//   around a median of 10-50 m indoors and 5-15 m outdoors, times `noise`, plus 2 m of jitter;
//   the accuracy reported is about the error's 68 % radius, give or take 40 %;
// - outliers: `outliers` of the points land 200-900 m off, most with a large accuracy, some in
//   runs of two or three at the same wrong place (a mislocated Wi-Fi network);
// - duplicates: 1 % of points are sent twice, a few metres apart;
// - a second tracker (`trackers: 2`): a watch every 30-90 s that reports its speed.
import type { DetectorPoint, Mode } from '../src/visits/detect.ts';
import { gauss, life, random, uniform, type Activity, type Knot, type Random } from './visits-plan.ts';

export interface SimOptions {
  seed: number;
  days: number;
  interval?: number | 'phone';
  noise?: number;
  outliers?: number;
  trackers?: 1 | 2;
  /** A Monday, midnight UTC. */
  start?: number;
}

export interface TruthStay {
  start: number;
  end: number;
  lat: number;
  lon: number;
  place: string;
}

export interface TruthTrip {
  start: number;
  end: number;
  mode: Mode;
  distanceM: number;
}

export interface Simulation {
  points: DetectorPoint[];
  stays: TruthStay[];
  trips: TruthTrip[];
  /** Metres truly travelled between two instants. */
  movedM(from: number, to: number): number;
  /** The mode of most of the distance travelled between two instants ('unknown' if none). */
  modeBetween(from: number, to: number): Mode;
}

interface Tracker {
  rand: Random;
  interval: number | 'phone';
  reportsSpeed: boolean;
  next: number;
  lastT: number;
  ex: number;
  ey: number;
  asleepUntil: number;
  burst: { dx: number; dy: number; accuracy: number; left: number } | null;
}

const M_PER_DEG = 111_195;
export const SIM_START = Date.UTC(2025, 0, 6);

function gap(tracker: Tracker): number {
  const r = tracker.rand;
  if (tracker.interval === 'phone') return 1000 * Math.exp(uniform(r, Math.log(10), Math.log(300)));
  return 1000 * tracker.interval * uniform(r, 0.5, 1.5);
}

/** Index of the knot a time falls after. */
function knotAt(knots: Knot[], t: number): number {
  let low = 0;
  let high = knots.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (knots[mid]!.t <= t) low = mid;
    else high = mid - 1;
  }
  return low;
}

function positionAt(knots: Knot[], t: number) {
  const i = knotAt(knots, t);
  const a = knots[i]!;
  const b = knots[i + 1] ?? a;
  const f = b.t > a.t ? Math.min(1, (t - a.t) / (b.t - a.t)) : 0;
  const speed = b.t > a.t ? (1000 * (b.cum - a.cum)) / (b.t - a.t) : 0;
  return {
    lat: a.lat + f * (b.lat - a.lat),
    lon: a.lon + f * (b.lon - a.lon),
    cum: a.cum + f * (b.cum - a.cum),
    speed,
  };
}

function record(
  tracker: Tracker,
  options: Required<SimOptions>,
  truth: { lat: number; lon: number; speed: number },
  sigma: number,
  indoor: boolean,
  emit: (p: DetectorPoint) => void,
) {
  const r = tracker.rand;
  const time = Math.round(tracker.next / 1000) * 1000;
  const rho = Math.exp(-(time - tracker.lastT) / (indoor ? 120_000 : 30_000));
  const step = Math.sqrt(1 - rho * rho) * sigma;
  tracker.ex = rho * tracker.ex + step * gauss(r);
  tracker.ey = rho * tracker.ey + step * gauss(r);
  tracker.lastT = time;
  let dx = tracker.ex + 2 * gauss(r);
  let dy = tracker.ey + 2 * gauss(r);
  let accuracy = Math.round(1.5 * sigma * uniform(r, 0.6, 1.4));
  if (!tracker.burst && r() < options.outliers) {
    const bearing = 2 * Math.PI * r();
    const off = uniform(r, 200, 900);
    const coarse = r() < 0.7 ? uniform(r, 150, 1000) : uniform(r, 30, 150);
    tracker.burst = { dx: off * Math.sin(bearing), dy: off * Math.cos(bearing), accuracy: Math.round(coarse), left: 1 };
    if (r() < 0.15) tracker.burst.left += Math.floor(uniform(r, 1, 3));
  }
  if (tracker.burst) {
    ({ dx, dy, accuracy } = tracker.burst);
    if (--tracker.burst.left === 0) tracker.burst = null;
  }
  const cos = Math.cos((truth.lat * Math.PI) / 180);
  const point = {
    time,
    lat: truth.lat + dy / M_PER_DEG,
    lon: truth.lon + dx / (M_PER_DEG * cos),
    accuracy,
    speed: tracker.reportsSpeed && !indoor ? Math.max(0, truth.speed + 0.3 * gauss(r)) : null,
  };
  emit(point);
  if (r() < 0.01) emit({ ...point, lat: point.lat + (3 * gauss(r)) / M_PER_DEG, accuracy: accuracy + 5 });
}

/** What one tracker records of one activity. */
function sample(tracker: Tracker, act: Activity, options: Required<SimOptions>, emit: (p: DetectorPoint) => void) {
  const r = tracker.rand;
  if (act.kind === 'stay') {
    const long = act.end - act.start;
    const sleeps = r() < (act.place.name === 'home' && long > 3 * 3_600_000 ? 0.9 : long > 1_800_000 ? 0.4 : 0.15);
    const awakeUntil = act.start + uniform(r, 5, 20) * 60_000;
    const error = uniform(r, act.place.indoor ? 10 : 5, act.place.indoor ? 50 : 15) * options.noise;
    while (tracker.next < act.end) {
      if (tracker.next < tracker.asleepUntil) tracker.next = tracker.asleepUntil;
      else if (sleeps && tracker.next > awakeUntil)
        tracker.next = tracker.asleepUntil = act.end + uniform(r, 20, 180) * 1000;
      else {
        record(tracker, options, { ...act.place, speed: 0 }, error / 1.1774, act.place.indoor, emit);
        tracker.next += 1.5 * gap(tracker);
      }
    }
    return;
  }
  const error = uniform(r, 5, 15) * options.noise;
  while (tracker.next < act.end) {
    if (tracker.next < tracker.asleepUntil) tracker.next = tracker.asleepUntil;
    else {
      record(tracker, options, positionAt(act.knots, tracker.next), error / 1.1774, false, emit);
      tracker.next += gap(tracker);
    }
  }
}

function newTracker(seed: number, interval: number | 'phone', reportsSpeed: boolean, start: number): Tracker {
  return {
    rand: random(seed),
    interval,
    reportsSpeed,
    next: start,
    lastT: start,
    ex: 0,
    ey: 0,
    asleepUntil: 0,
    burst: null,
  };
}

/** The activities of `options.days` days, each with the points recorded during it (both trackers, in time order). */
export function* simulateActivities(input: SimOptions): Generator<{ activity: Activity; points: DetectorPoint[] }> {
  const options: Required<SimOptions> = {
    interval: 'phone',
    noise: 1,
    outliers: 0.015,
    trackers: 1,
    start: SIM_START,
    ...input,
  };
  const end = options.start + options.days * 86_400_000;
  const trackers = [newTracker(options.seed * 3 + 1, options.interval, false, options.start)];
  if (options.trackers === 2) trackers.push(newTracker(options.seed * 3 + 2, 60, true, options.start));
  for (let activity of life(random(options.seed), options.start)) {
    if (activity.start >= end || (activity.kind === 'move' && activity.end > end)) return;
    if (activity.end > end) activity = { ...activity, end };
    const points: DetectorPoint[] = [];
    for (const tracker of trackers) sample(tracker, activity, options, (p) => points.push(p));
    if (trackers.length > 1) points.sort((a, b) => a.time - b.time);
    yield { activity, points };
  }
}

/** Points and truth of `options.days` days, all in memory. */
export function simulate(options: SimOptions): Simulation {
  const points: DetectorPoint[] = [];
  const stays: TruthStay[] = [];
  const trips: TruthTrip[] = [];
  const moves: Extract<Activity, { kind: 'move' }>[] = [];
  let previous: Activity | null = null;
  for (const { activity, points: recorded } of simulateActivities(options)) {
    for (const p of recorded) points.push(p);
    if (activity.kind === 'stay') {
      const { start, end, place } = activity;
      stays.push({ start, end, lat: place.lat, lon: place.lon, place: place.name });
    } else {
      moves.push(activity);
      const distanceM = activity.knots.at(-1)!.cum;
      const joined = previous?.kind === 'move' ? trips.at(-1) : undefined;
      if (joined) {
        joined.end = activity.end;
        joined.distanceM += distanceM;
      } else trips.push({ start: activity.start, end: activity.end, mode: activity.mode, distanceM });
    }
    previous = activity;
  }
  const movedBy = (from: number, to: number, pick: (mode: Mode) => boolean) => {
    let metres = 0;
    for (const move of moves) {
      if (move.end <= from || move.start >= to || !pick(move.mode)) continue;
      metres +=
        positionAt(move.knots, Math.min(to, move.end)).cum - positionAt(move.knots, Math.max(from, move.start)).cum;
    }
    return metres;
  };
  for (const trip of trips) trip.mode = modeOf(trip.start, trip.end);
  function modeOf(from: number, to: number): Mode {
    let best: Mode = 'unknown';
    let most = 0;
    for (const mode of ['walking', 'cycling', 'driving', 'train', 'flight'] as const) {
      const metres = movedBy(from, to, (m) => m === mode);
      if (metres > most) [best, most] = [mode, metres];
    }
    return best;
  }
  return { points, stays, trips, movedM: (from, to) => movedBy(from, to, () => true), modeBetween: modeOf };
}
