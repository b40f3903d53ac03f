// The movement between two stays, summed as it streams by: distance between points at least
// TRIP_STEP_M apart (GPS jumps count nothing, as everywhere in the history), and a histogram of
// the speeds between them weighted by distance (the speed at which each metre was covered, so
// waits at lights count nothing and a short walk to the car does not outweigh the drive), from
// which the mode is read. Constant memory however long the trip.
import { distanceM, segmentM, type TimedPoint } from '../lib/distance.ts';
import { TRIP_STEP_M, type DetectorPoint } from './model.ts';

/** Speeds are kept in bins 5 % wide from 0.1 m/s up; the last bin holds everything faster. */
const BIN_BASE = 0.1;
const BIN_RATIO = Math.log(1.05);
const BINS = 180; // 0.1 * 1.05^180 = 650 m/s

export interface TripSums {
  /** Where the trip started from: the centre of the stay it left (null after a gap). */
  origin: TimedPoint | null;
  /** Where distance is counted from: the last point counted. */
  anchor: TimedPoint | null;
  /** The anchor is where the trip started (a stay's centre), not one of its points. */
  anchorIsStart: boolean;
  distanceM: number;
  /** The farthest any point got from `origin`. */
  reachM: number;
  count: number;
  first: DetectorPoint | null;
  last: DetectorPoint | null;
  /** Metres covered at each speed, between counted points. */
  measured: Float64Array;
  /** The speeds the tracker reported, each weighted by itself (metres a second), and how many points had one. */
  reported: Float64Array;
  reportedCount: number;
  /** Metres and seconds of the first and of the latest END_STEPS steps: how fast the trip left and arrived, waits included. */
  lead: Float64Array;
  tail: Float64Array;
  steps: number;
}

/** Steps that tell how fast a trip left or arrived. */
const END_STEPS = 3;

export function newTrip(anchor: TimedPoint | null): TripSums {
  return {
    origin: anchor,
    anchor,
    anchorIsStart: anchor != null,
    distanceM: 0,
    reachM: 0,
    count: 0,
    first: null,
    last: null,
    measured: new Float64Array(BINS),
    reported: new Float64Array(BINS),
    reportedCount: 0,
    lead: new Float64Array(2),
    tail: new Float64Array(2 * END_STEPS),
    steps: 0,
  };
}

function bin(speed: number): number {
  if (speed <= BIN_BASE) return 0;
  return Math.min(BINS - 1, Math.floor(Math.log(speed / BIN_BASE) / BIN_RATIO));
}

/** The speed at the middle of a bin. */
function binSpeed(index: number): number {
  return BIN_BASE * Math.exp((index + 0.5) * BIN_RATIO);
}

export function addTripPoint(t: TripSums, p: DetectorPoint) {
  t.count += 1;
  if (t.origin) t.reachM = Math.max(t.reachM, distanceM(t.origin, p));
  t.first ??= p;
  t.last = p;
  if (p.speed != null && p.speed >= 0) {
    t.reported[bin(p.speed)]! += p.speed;
    t.reportedCount += 1;
  }
  if (!t.anchor) {
    t.anchor = p;
    return;
  }
  if (distanceM(t.anchor, p) < TRIP_STEP_M) return;
  const metres = segmentM(t.anchor, p);
  const seconds = (p.time - t.anchor.time) / 1000;
  t.distanceM += metres;
  // The first step from a stay's centre starts at a time nobody knows: not a speed. A GPS jump
  // (0 m) is not one either.
  if (!t.anchorIsStart && metres > 0 && seconds > 0) {
    t.measured[bin(metres / seconds)]! += metres;
    if (t.steps < END_STEPS) {
      t.lead[0]! += metres;
      t.lead[1]! += seconds;
    }
    const slot = 2 * (t.steps % END_STEPS);
    t.tail[slot] = metres;
    t.tail[slot + 1] = seconds;
    t.steps += 1;
  }
  t.anchor = p;
  t.anchorIsStart = false;
}

/** The distance up to `end` (the next stay's centre), counted like the rest. */
export function closeDistance(t: TripSums, end: TimedPoint): number {
  return t.anchor ? t.distanceM + segmentM(t.anchor, end) : t.distanceM;
}

/** Average speed (m/s) of the trip's first steps, or of its latest; null before any step. */
export function endSpeed(t: TripSums, end: 'lead' | 'tail'): number | null {
  if (t.steps === 0) return null;
  let metres = 0;
  let seconds = 0;
  const sums = end === 'lead' ? t.lead : t.tail;
  for (let i = 0; i < sums.length; i += 2) {
    metres += sums[i]!;
    seconds += sums[i + 1]!;
  }
  return metres / seconds;
}

/** The speed below which `share` of the histogram's weight lies; null when it is empty. */
export function percentile(histogram: Float64Array, share: number): number | null {
  let total = 0;
  for (const w of histogram) total += w;
  if (total === 0) return null;
  let sum = 0;
  for (let i = 0; i < BINS; i += 1) {
    sum += histogram[i]!;
    if (sum >= share * total) return binSpeed(i);
  }
  return binSpeed(BINS - 1);
}

/** The speeds to judge the trip by: the tracker's own when most points had one, else measured. */
export function speedsOf(t: TripSums): Float64Array {
  return t.reportedCount * 2 > t.count ? t.reported : t.measured;
}
