// The state machine of visit and trip detection (docs/history.md "Visits and trips"): at a
// stay, or travelling with the latest points as a candidate stay; a silence held back until it
// is understood. Memory is the stay or the few minutes of movement in progress, whatever the
// number of points.
import { distanceM } from '../lib/distance.ts';
import { createCleaner } from './clean.ts';
import {
  addPoint,
  addStray,
  departed,
  distanceTo,
  dropLast,
  meanCentre,
  medianCentre,
  mergeInto,
  newCluster,
  reachOf,
  recedes,
  WAY_OUT_MS,
  type Cluster,
} from './cluster.ts';
import { settle, speedAfterSilence, WAKE_POINTS, WAKE_SPAN_MS, type Stay } from './ends.ts';
import { GAP_MS, STAY_MIN_MS, STAY_RADIUS_M, WAKE_MAX_MS, type Detection, type DetectorPoint } from './model.ts';
import { addTripPoint, newTrip } from './trip.ts';

export interface Detector {
  /**
   * One point, not earlier than the last (a RangeError otherwise; points of several trackers
   * interleaved by time, any at the same instant are one). Returns the visits and trips this
   * point finished, or null. The k-th visit a detector returns has index k, which trips name in
   * `fromIndex`/`toIndex`.
   */
  push(point: DetectorPoint): Detection | null;
  /**
   * The end of the points: returns what is left, the stay or trip in progress included (its end
   * is its last point). The detector then starts over, indexes from 0.
   */
  flush(): Detection;
}

/**
 * A longer silence may be a phone asleep at a stay (twice the five minutes sparse trackers
 * leave between points while moving).
 */
const SLEEP_MS = 10 * 60_000;

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

  function leave(stay: Stay) {
    left = stay;
    here = null;
    herePending = [];
    const centre = medianCentre(stay.cluster);
    trip = newTrip({ time: stay.end ?? stay.cluster.last.time, lat: centre.lat, lon: centre.lon });
  }

  /** The trip in progress ends (at `to`, or at the edge of the data or a gap): it and the stay it left are decided. */
  function finishTrip(to: Stay | null) {
    const done = settle(left, trip, to);
    if (done.visit) out.visits.push(done.visit);
    if (done.trip) out.trips.push(done.trip);
    left = null;
    trip = newTrip(null);
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
      const awayMs = (distanceTo(place, first) / speedAfterSilence(points)) * 1000;
      if (awayMs <= WAKE_MAX_MS && first.time - awayMs >= place.last.time) wokeAt = Math.round(first.time - awayMs);
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
