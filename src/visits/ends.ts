// Where a stay ends and the next begins, and what a finished trip and visit say
// (docs/history.md "Visits and trips"). Points are samples: a stay ended somewhere between its
// last point and the first point away, and how far that point is, at the speed the trip left
// at, tells where.
import { distanceM } from '../lib/distance.ts';
import { medianCentre, spreadM, type Centre, type Cluster } from './cluster.ts';
import { STAY_RADIUS_M, WAKE_DEFAULT_MPS, type DetectorPoint, type Trip, type Visit } from './model.ts';
import { guessMode, guessSparseMode } from './modes.ts';
import { closeDistance, endSpeed, percentile, speedsOf, type TripSums } from './trip.ts';

/** A stay found: its points, and when it began and ended once that is decided. */
export interface Stay {
  cluster: Cluster;
  index: number;
  start: number;
  end: number | null;
  /** It reaches across a silence to a first point elsewhere (WAKE_MAX_MS). */
  woke: boolean;
}

/** Points after a silence are held back before deciding about it, enough to see how fast they move: this long, or this many. */
export const WAKE_SPAN_MS = 3 * 60_000;
export const WAKE_POINTS = 20;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const at = (centre: Centre, time: number) => ({ time, lat: centre.lat, lon: centre.lon });

/**
 * How fast the points after a silence move, m/s: the fastest straight-line speed over any
 * minute or more of them (a wait at a light just after waking, or a stop at the next place,
 * does not slow it down; the noise of a point or two does not speed it up), a slow walk at least.
 */
export function speedAfterSilence(points: DetectorPoint[]): number {
  let fastest = WAKE_DEFAULT_MPS;
  for (let i = 0; i < points.length; i += 1) {
    for (let j = i + 1; j < points.length; j += 1) {
      const ms = points[j]!.time - points[i]!.time;
      if (ms < WAKE_SPAN_MS / 3 && !(i === 0 && j === points.length - 1)) continue;
      if (ms > 0) fastest = Math.max(fastest, (1000 * distanceM(points[i]!, points[j]!)) / ms);
    }
  }
  return fastest;
}

export function visitOf(stay: Stay): Visit {
  const centre = medianCentre(stay.cluster);
  const spread = spreadM(stay.cluster, centre);
  // Many points close together make a sure stay; few, spread, or reaching across a silence, less so.
  const density = Math.min(1, stay.cluster.points.length / 8);
  const tight = 1 - 0.5 * Math.min(1, spread / STAY_RADIUS_M);
  const confidence = Math.round(100 * density * tight * (stay.woke ? 0.8 : 1)) / 100;
  return { start: stay.start, end: stay.end!, ...centre, pointCount: stay.cluster.count, confidence };
}

/**
 * A trip too sparse for a step of its own covered the way from the stay it left to its first
 * point, and from its last point to the next stay, no slower than straight in the time
 * between: the faster of the two is how fast it went, at least (and at least a slow walk).
 */
function boundSpeed(from: Stay | null, trip: TripSums, to: Stay | null, toCentre: Centre | null): number {
  let speed = WAKE_DEFAULT_MPS;
  const bound = (a: { lat: number; lon: number }, b: { lat: number; lon: number }, ms: number) => {
    if (ms > 0) speed = Math.max(speed, (1000 * distanceM(a, b)) / ms);
  };
  if (from && trip.first) bound(trip.origin!, trip.first, trip.first.time - from.cluster.last.time);
  if (to && trip.last) bound(trip.last, toCentre!, to.cluster.first.time - trip.last.time);
  return speed;
}

/**
 * A trip ends (at `to`, or at the edge of the data or a gap): when the stay it left ended and
 * `to` began (set on them), the visit it left, and the trip itself (none when nothing moved).
 */
export function settle(left: Stay | null, trip: TripSums, to: Stay | null): { visit: Visit | null; trip: Trip | null } {
  const measured = percentile(speedsOf(trip), 0.5);
  // How long the way from a stay to the first point took, or from the last point to the next
  // stay: at the speed the trip left or arrived at; without steps to measure, at the speed
  // bound by its legs from and to the stays (a phone that slept, or sparse points).
  const toCentre = to ? medianCentre(to.cluster) : null;
  const unmeasured = trip.steps ? WAKE_DEFAULT_MPS : boundSpeed(left, trip, to, toCentre);
  const leaving = endSpeed(trip, 'lead') ?? unmeasured;
  const arriving = endSpeed(trip, 'tail') ?? unmeasured;
  if (left && left.end == null) {
    const away = trip.first ?? to?.cluster.first;
    const lastIn = left.cluster.last.time;
    left.end = away
      ? Math.round(clamp(away.time - (distanceM(trip.origin!, away) / leaving) * 1000, lastIn, away.time))
      : lastIn;
  }
  if (to) {
    const before = trip.last ?? (left ? at(trip.origin!, left.end!) : null);
    const first = to.cluster.first.time;
    to.start = before
      ? Math.round(clamp(before.time + (distanceM(before, toCentre!) / arriving) * 1000, before.time, first))
      : first;
  }
  const start = left ? left.end! : trip.first?.time;
  const end = to ? to.start : trip.last?.time;
  let result: Trip | null = null;
  // Between two stays there is always a trip; at the edge of the data or a gap, only movement.
  if (start != null && end != null && ((left && to) || end > start)) {
    const distance = toCentre ? closeDistance(trip, at(toCentre, to!.start)) : trip.distanceM;
    result = {
      start,
      end,
      distanceM: Math.round(distance),
      mode: measured != null ? guessMode(measured, distance) : guessSparseMode(distance, end - start),
      fromIndex: left ? left.index : null,
      toIndex: to ? to.index : null,
    };
  }
  return { visit: left ? visitOf(left) : null, trip: result };
}
