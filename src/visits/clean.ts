// The points detection trusts: coarse fixes dropped, one point per instant, single-point spikes
// removed (docs/history.md "Visits and trips"). Streaming, with one point of look-ahead.
import { distanceM } from '../lib/distance.ts';
import { DEFAULT_ACCURACY_M, MAX_ACCURACY_M, SPIKE_MIN_M, SPIKE_WINDOW_MS, type DetectorPoint } from './model.ts';

export interface Cleaner {
  push(point: DetectorPoint): void;
  flush(): void;
}

const accuracyOf = (p: DetectorPoint) => p.accuracy ?? DEFAULT_ACCURACY_M;

/**
 * Of two points at the same instant (two trackers, or one sending twice), the more accurate;
 * ties broken by position, so the choice never depends on the order they came in.
 */
function better(a: DetectorPoint, b: DetectorPoint): DetectorPoint {
  const order = accuracyOf(a) - accuracyOf(b) || a.lat - b.lat || a.lon - b.lon || (a.speed ?? -1) - (b.speed ?? -1);
  return order <= 0 ? a : b;
}

/** Runs of up to this many points away and back are spikes (a mislocated Wi-Fi network repeats itself). */
const SPIKE_RUN = 3;

/**
 * `run` sticks out between `before` and `after` and comes back: each of its points far from
 * both, and the way through it more than twice the way straight from `before` to `after`. A real
 * turn never doubles the way (a right angle makes it 1.4 times); a real detour out and back of
 * that size in a few samples is possible, but it is over before anything could be said about
 * it. The return must be real: `next`, the point after it, is closer to `after` than the run
 * was (else `after` may be the outlier, and the run the truth). All within SPIKE_WINDOW_MS:
 * across a gap, points far from both sides are as likely a stay the phone slept through.
 */
function isSpike(before: DetectorPoint, run: DetectorPoint[], after: DetectorPoint, next: DetectorPoint): boolean {
  if (after.time - before.time > SPIKE_WINDOW_MS) return false;
  let way = 0;
  let from = before;
  let nearest = Infinity;
  for (const p of run) {
    const back = distanceM(p, after);
    if (distanceM(before, p) < SPIKE_MIN_M || back < SPIKE_MIN_M) return false;
    nearest = Math.min(nearest, back);
    way += distanceM(from, p);
    from = p;
  }
  way += distanceM(from, after);
  return way > 2 * distanceM(before, after) + SPIKE_MIN_M && distanceM(after, next) < nearest;
}

export function createCleaner(emit: (point: DetectorPoint) => void): Cleaner {
  let instant: DetectorPoint | undefined; // the best point so far at the latest time
  let before: DetectorPoint | undefined; // the last point passed on
  const held: DetectorPoint[] = []; // waiting for the points after them

  /** Passes on or drops the first held point(s), judging runs of up to `upTo` points (two held points must follow a run). */
  function decide(upTo: number) {
    const first = held[0]!;
    if (before && distanceM(before, first) >= SPIKE_MIN_M) {
      for (let k = 1; k <= upTo; k += 1) {
        if (isSpike(before, held.slice(0, k), held[k]!, held[k + 1]!)) {
          held.splice(0, k);
          return;
        }
      }
    }
    emit(first);
    before = first;
    held.shift();
  }

  function take(point: DetectorPoint) {
    held.push(point);
    if (held.length > SPIKE_RUN + 1) decide(SPIKE_RUN);
  }

  return {
    push(point) {
      if (!Number.isFinite(point.time) || !Number.isFinite(point.lat) || !Number.isFinite(point.lon)) return;
      if (Math.abs(point.lat) > 90 || Math.abs(point.lon) > 180) return;
      if (point.accuracy != null && !(point.accuracy <= MAX_ACCURACY_M)) return;
      if (instant && point.time < instant.time) {
        throw new RangeError(`points must come in time order: ${point.time} after ${instant.time}`);
      }
      if (instant && point.time === instant.time) {
        instant = better(instant, point);
        return;
      }
      if (instant) take(instant);
      instant = point;
    },
    flush() {
      if (instant) take(instant);
      while (held.length) decide(held.length - 2);
      instant = before = undefined;
    },
  };
}
