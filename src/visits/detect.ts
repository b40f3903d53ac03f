// Visits (stays) and trips from one person's points, as they stream by in time order
// (docs/history.md "Visits and trips"). Pure: plain points in, plain visits and trips out; no
// database, no clock. Memory is the stay or the few minutes of movement in progress, whatever
// the number of points.
import { distanceM } from '../history/geo.ts';
import { createCleaner } from './clean.ts';
import {
  addPoint,
  addStray,
  distanceTo,
  medianCentre,
  meanCentre,
  mergeInto,
  newCluster,
  reachOf,
  recedes,
  dropLast,
  WAY_OUT_MS,
  spreadM,
  type Centre,
  type Cluster,
} from './cluster.ts';
import {
  DEPART_MS,
  GAP_MS,
  STAY_MIN_MS,
  STAY_RADIUS_M,
  WAKE_DEFAULT_MPS,
  WAKE_MAX_MS,
  type Detection,
  type DetectorPoint,
  type Trip,
} from './model.ts';
import { guessMode, guessSparseMode } from './modes.ts';
import { addTripPoint, closeDistance, endSpeed, newTrip, percentile, speedsOf } from './trip.ts';

export type { Detection, DetectorPoint, Mode, Trip, Visit } from './model.ts';
export * from './model.ts';
export { MODE_BANDS, MODE_MIN_DISTANCE_M } from './modes.ts';

export interface Detector {
  /**
   * One point, not earlier than the last (points of several trackers interleaved by time; any
   * at the same instant are one). Returns the visits and trips this point finished, or null.
   * The k-th visit a detector returns has index k, which trips name in `fromIndex`/`toIndex`.
   */
  push(point: DetectorPoint): Detection | null;
  /** The end of the points: returns what is left, the stay or trip in progress included. */
  flush(): Detection;
}

/** A stay found: its points, and when it began and ended once that is decided. */
interface Stay {
  cluster: Cluster;
  index: number;
  start: number;
  end: number | null;
  /** It reaches across a gap to a first point elsewhere (WAKE_MAX_MS). */
  woke: boolean;
}

/** Points after a gap are held back before deciding about it, enough to see how fast they move: this long, or this many. */
const WAKE_SPAN_MS = 3 * 60_000;
const WAKE_POINTS = 20;
/**
 * A longer silence may be a phone asleep at a stay (twice the five minutes sparse trackers
 * leave between points while moving).
 */
const SLEEP_MS = 10 * 60_000;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** Points outside a place's radius are a departure once they last, or go far. */
function departed(cluster: Cluster, outside: DetectorPoint[]): boolean {
  const lastOut = outside.at(-1)!;
  return (
    lastOut.time - outside[0]!.time >= DEPART_MS || distanceTo(cluster, lastOut) > STAY_RADIUS_M + reachOf(lastOut)
  );
}

/**
 * How fast the points after a gap move, m/s: the fastest straight-line speed over any minute
 * or more of them (a wait at a light just after waking, or a stop at the next place, does not
 * slow it down; the noise of a point or two does not speed it up), a slow walk at least.
 */
function speedAfterGap(points: DetectorPoint[]): number {
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

function visitOf(stay: Stay) {
  const centre = medianCentre(stay.cluster);
  const spread = spreadM(stay.cluster, centre);
  // Many points close together make a sure stay; few, spread, or reaching across a gap, less so.
  const density = Math.min(1, stay.cluster.points.length / 8);
  const tight = 1 - 0.5 * Math.min(1, spread / STAY_RADIUS_M);
  const confidence = Math.round(100 * density * tight * (stay.woke ? 0.8 : 1)) / 100;
  return { start: stay.start, end: stay.end!, ...centre, pointCount: stay.cluster.count, confidence };
}

export function createDetector(): Detector {
  let out: Detection = { visits: [], trips: [] };
  let nextIndex = 0;
  let here: Stay | null = null; // the stay we are at
  let herePending: DetectorPoint[] = []; // points outside it, not yet a departure
  let left: Stay | null = null; // the stay the trip in progress left, its end not yet decided
  let trip = newTrip(null);
  let cand: Cluster | null = null; // while travelling: the latest points that could be a stay
  let candPoints: DetectorPoint[] = [];
  let candPending: DetectorPoint[] = [];
  let last: DetectorPoint | null = null;
  let afterSilence: DetectorPoint[] | null = null; // points after a silence, held until it is understood

  const anchorOf = (centre: Centre, time: number) => ({ time, lat: centre.lat, lon: centre.lon });

  function leave(stay: Stay) {
    left = stay;
    here = null;
    herePending = [];
    trip = newTrip(anchorOf(medianCentre(stay.cluster), stay.end ?? stay.cluster.last.time));
  }

  /** The trip in progress ends (at `to`, or at the edge of the data or a gap): it and the stay it left are decided. */
  function finishTrip(to: Stay | null) {
    const measured = percentile(speedsOf(trip), 0.5);
    // How long the way from a stay to the first point took, or from the last point to the
    // next stay: at the speed the trip left or arrived at, or without steps to measure (a phone
    // that slept, or sparse points) at a slow walk, so the stay ends no earlier than walking
    // away explains, and the next begins no later.
    const toCentre = to ? medianCentre(to.cluster) : null;
    const unmeasured = trip.steps ? WAKE_DEFAULT_MPS : boundSpeed(left, to, toCentre);
    const leaving = endSpeed(trip, 'lead') ?? unmeasured;
    const arriving = endSpeed(trip, 'tail') ?? unmeasured;
    if (left && left.end == null) {
      const away = trip.first ?? to?.cluster.first;
      const lastIn = left.cluster.last.time;
      left.end = away ? clamp(away.time - (distanceM(trip.origin!, away) / leaving) * 1000, lastIn, away.time) : lastIn;
    }
    if (left) out.visits.push(visitOf(left));
    if (to) {
      const before = trip.last ?? (left ? anchorOf(trip.origin!, left.end!) : null);
      const first = to.cluster.first.time;
      to.start = before
        ? clamp(before.time + (distanceM(before, toCentre!) / arriving) * 1000, before.time, first)
        : first;
    }
    const start = left ? left.end! : trip.first?.time;
    const end = to ? to.start : trip.last?.time;
    if (start != null && end != null && (left || to || trip.count > 1)) {
      const distance = toCentre ? closeDistance(trip, anchorOf(toCentre, to!.start)) : trip.distanceM;
      const result: Trip = {
        start,
        end,
        distanceM: Math.round(distance),
        mode: measured != null ? guessMode(measured, distance) : guessSparseMode(distance, end - start),
        fromIndex: left ? left.index : null,
        toIndex: to ? to.index : null,
      };
      out.trips.push(result);
    }
    left = null;
    trip = newTrip(null);
  }

  /**
   * A trip too sparse for a step of its own covered the way from the stay it left to its first
   * point, and from its last point to the next stay, no slower than straight in the time
   * between: the faster of the two is how fast it went, at least (and at least a slow walk).
   */
  function boundSpeed(from: Stay | null, to: Stay | null, toCentre: Centre | null): number {
    let speed = WAKE_DEFAULT_MPS;
    const bound = (a: { lat: number; lon: number }, b: { lat: number; lon: number }, ms: number) => {
      if (ms > 0) speed = Math.max(speed, (1000 * distanceM(a, b)) / ms);
    };
    if (from && trip.first) bound(trip.origin!, trip.first, trip.first.time - from.cluster.last.time);
    if (to && trip.last) bound(trip.last, toCentre!, to.cluster.first.time - trip.last.time);
    return speed;
  }

  /** The candidate stays: the trip into it ends, or it is the stay the trip left, come back to. */
  function confirm() {
    const cluster = cand!;
    cand = null;
    candPoints = [];
    candPending = [];
    // Back at the place just left, after too short a time or without going anywhere: one stay.
    const away = left ? cluster.first.time - left.cluster.last.time : Infinity;
    const nowhere = trip.reachM <= 2 * STAY_RADIUS_M;
    if (
      left &&
      (away < STAY_MIN_MS || nowhere) &&
      distanceM(meanCentre(left.cluster), meanCentre(cluster)) <= STAY_RADIUS_M
    ) {
      mergeInto(left.cluster, cluster, trip.count);
      here = left;
      here.end = null;
      left = null;
      trip = newTrip(null);
      return;
    }
    const stay: Stay = { cluster, index: nextIndex, start: cluster.first.time, end: null, woke: false };
    nextIndex += 1;
    finishTrip(stay);
    here = stay;
  }

  /** Starts the candidate over at `points[from]`; the points before it are movement. */
  function restartAt(points: DetectorPoint[], from: number) {
    for (let i = 0; i < from; i += 1) addTripPoint(trip, points[i]!);
    cand = newCluster(points[from]!);
    for (let i = from + 1; i < points.length; i += 1) addPoint(cand, points[i]!);
    candPoints = points.slice(from);
    candPending = [];
  }

  /** A candidate long enough (until `until`): without the approach (points away from its centre), is it still? */
  function tryConfirm(until = candPoints.at(-1)!.time) {
    const centre = medianCentre(cand!);
    let from = candPoints.findIndex((p) => distanceM(centre, p) <= reachOf(p));
    // Points still closing in on the place are the way there.
    while (from >= 0 && from < candPoints.length - 1 && recedes(candPoints[from + 1]!, candPoints[from]!, centre))
      from += 1;
    if (from < 0 || until - candPoints[from]!.time < STAY_MIN_MS) return false;
    if (from > 0) restartAt(candPoints, from);
    confirm();
    return true;
  }

  function travelling(p: DetectorPoint) {
    if (!cand) {
      restartAt([p], 0);
      return;
    }
    if (distanceTo(cand, p) <= reachOf(p)) {
      addStray(cand, candPending.length);
      candPoints.push(...candPending, p);
      candPending = [];
      addPoint(cand, p);
      if (p.time - cand.first.time >= STAY_MIN_MS) tryConfirm();
      return;
    }
    candPending.push(p);
    // A single point has no noise to wait out.
    if (candPoints.length > 1 && !departed(cand, candPending)) return;
    restartCandidate();
    if (candPoints.at(-1)!.time - cand.first.time >= STAY_MIN_MS) tryConfirm();
  }

  /** The candidate becomes the latest points that lie together (each within the radius of the centre of those after it). */
  function restartCandidate() {
    const points = [...candPoints, ...candPending];
    let from = points.length - 1;
    const back = newCluster(points[from]!);
    while (from > 0 && distanceTo(back, points[from - 1]!) <= reachOf(points[from - 1]!))
      addPoint(back, points[--from]!);
    restartAt(points, from);
  }

  function atStay(stay: Stay, p: DetectorPoint) {
    if (distanceTo(stay.cluster, p) <= reachOf(p)) {
      addStray(stay.cluster, herePending.length);
      herePending = [];
      addPoint(stay.cluster, p);
      return;
    }
    herePending.push(p);
    if (!departed(stay.cluster, herePending)) return;
    const outside = herePending;
    const going = wayOut(stay, outside[0]!.time, outside.at(-1)!.time);
    leave(stay);
    for (const q of [...going, ...outside]) move(q);
  }

  /**
   * The stay's last points that walk away from it, in the WAY_OUT_MS before `leaving`, are the
   * trip's first: taken out of the stay. Never so many that they and the points outside up to
   * `until` could make a stay of their own (they would come back to this one, and leave again).
   */
  function wayOut(stay: Stay, leaving: number, until: number): DetectorPoint[] {
    const centre = medianCentre(stay.cluster);
    const recent = stay.cluster.recent;
    let k = 0;
    while (k < recent.length - 1 && recedes(recent.at(-2 - k)!, recent.at(-1 - k)!, centre)) k += 1;
    while (k > 0 && leaving - recent.at(-k)!.time > WAY_OUT_MS) k -= 1;
    if (k === 0 || until - recent.at(-k)!.time >= STAY_MIN_MS) return [];
    return dropLast(stay.cluster, k);
  }

  function move(p: DetectorPoint) {
    if (here) atStay(here, p);
    else travelling(p);
    last = p;
  }

  /** The trip in progress stops at the data's edge or a gap; the candidate was movement. */
  function endTrip() {
    for (const q of [...candPoints, ...candPending]) addTripPoint(trip, q);
    cand = null;
    candPoints = [];
    candPending = [];
    finishTrip(null);
  }

  function leaveHere() {
    const stay = here!;
    const lastTime = herePending.at(-1)?.time ?? stay.cluster.last.time;
    const outside = [...wayOut(stay, herePending[0]?.time ?? lastTime, lastTime), ...herePending];
    if (!outside.length) stay.end ??= stay.cluster.last.time;
    leave(stay);
    for (const q of outside) move(q);
  }

  /**
   * After a silence the first point is elsewhere. A phone that slept while still wakes as it
   * moves: if leaving shortly before that point explains it (WAKE_MAX_MS, at the speed of the
   * points after it), the stay lasted until then. Otherwise a gap (GAP_MS) is neither stay nor
   * trip, and a shorter silence is only time between two points.
   */
  function resolveSilence() {
    const points = afterSilence!;
    afterSilence = null;
    const first = points[0]!;
    const gap = first.time - last!.time > GAP_MS;
    // Points outside a stay that are not yet a departure were noise; while travelling, the
    // latest points that lie together are where the phone went to sleep.
    if (here) {
      addStray(here.cluster, herePending.length);
      herePending = [];
    } else if (candPending.length) restartCandidate();
    // A single point before a short silence is no evidence of staying (a sparse tracker on the move).
    const place = here ? here.cluster : cand && (gap || candPoints.length > 1) ? cand : null;
    let wokeAt: number | null = null;
    if (place) {
      const awayMs = (distanceTo(place, first) / speedAfterGap(points)) * 1000;
      if (awayMs <= WAKE_MAX_MS && first.time - awayMs >= place.last.time) wokeAt = first.time - awayMs;
    }
    if (!here && cand && wokeAt != null) tryConfirm(wokeAt);
    if (here && wokeAt != null) {
      here.end = wokeAt;
      here.woke = true;
      leave(here);
    } else if (gap) {
      if (here) leaveHere();
      endTrip();
    }
    last = null;
    for (const q of points) step(q);
  }

  function step(p: DetectorPoint) {
    if (afterSilence) {
      afterSilence.push(p);
      const span = p.time - afterSilence[0]!.time;
      const silent = p.time - afterSilence.at(-2)!.time > SLEEP_MS;
      if (span >= WAKE_SPAN_MS || afterSilence.length >= WAKE_POINTS || silent) resolveSilence();
      return;
    }
    if (last && p.time - last.time > SLEEP_MS) {
      const place = here ? here.cluster : cand;
      if (!place || distanceTo(place, p) > reachOf(p)) {
        afterSilence = [p];
        return;
      }
    }
    move(p);
  }

  const cleaner = createCleaner(step);
  const drain = () => {
    const done = out;
    out = { visits: [], trips: [] };
    return done;
  };

  return {
    push(point) {
      cleaner.push(point);
      return out.visits.length || out.trips.length ? drain() : null;
    },
    flush() {
      cleaner.flush();
      if (afterSilence) resolveSilence();
      if (here) leaveHere();
      endTrip();
      last = null;
      nextIndex = 0;
      return drain();
    },
  };
}

/** Visits and trips of points in time order, all at once (createDetector, pushed one by one). */
export function detect(points: Iterable<DetectorPoint>): Detection {
  const detector = createDetector();
  const visits = [];
  const trips = [];
  for (const point of points) {
    const done = detector.push(point);
    if (done) {
      visits.push(...done.visits);
      trips.push(...done.trips);
    }
  }
  const done = detector.flush();
  visits.push(...done.visits);
  trips.push(...done.trips);
  return { visits, trips };
}
