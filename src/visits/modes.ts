// A trip's mode from its speed (docs/history.md "Visits and trips"): the median of the speeds
// weighted by distance, the speed at which half the way was covered (waits at lights and
// stations weigh nothing, a walk to the car little). Bands with a margin between them; a trip
// in a margin, or too short or too sparse to have speeds, is `unknown`.
import type { Mode } from './model.ts';

export interface ModeBand {
  mode: Mode;
  /** Speed (distance-weighted median), m/s: at least `min`, below `max`. */
  min: number;
  max: number;
}

/**
 * Walking covers its way at 1-1.7 m/s (a brisk 6 km/h); running and a slow bicycle at 2.5-3 are
 * left unknown. A bicycle rides at 3-7 m/s (an e-bike's motor stops at 25 km/h, 6.9 m/s); a car
 * in town covers its way at 7-15 m/s, lights included, and at 25-36 on a motorway; a train at
 * 44-100 (160-360 km/h; a slower regional train is read as a car), an airliner at 200-250.
 */
export const MODE_BANDS: readonly ModeBand[] = [
  { mode: 'walking', min: 0, max: 2.5 },
  { mode: 'cycling', min: 3, max: 7 },
  { mode: 'driving', min: 7.5, max: 40 },
  { mode: 'train', min: 44, max: 100 },
  { mode: 'flight', min: 110, max: Infinity },
];

/** Shorter trips are too little to tell a mode from. */
export const MODE_MIN_DISTANCE_M = 200;

export function guessMode(speed: number | null, distanceM: number): Mode {
  if (speed == null || distanceM < MODE_MIN_DISTANCE_M) return 'unknown';
  return MODE_BANDS.find((band) => speed >= band.min && speed < band.max)?.mode ?? 'unknown';
}

/**
 * A trip too sparse to have a step of its own has only its average from stay to stay, which is
 * a lower bound of its speed (it may include lingering at either end): enough to say a car or
 * faster, never to say walking or cycling.
 */
export function guessSparseMode(distanceM: number, durationMs: number): Mode {
  const mode = durationMs > 0 ? guessMode((1000 * distanceM) / durationMs, distanceM) : 'unknown';
  return mode === 'walking' || mode === 'cycling' ? 'unknown' : mode;
}
