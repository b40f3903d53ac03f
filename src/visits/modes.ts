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
 * Walking tops out near 2 m/s (a brisk 7 km/h), a bicycle cruises at 4-8 m/s, a car in town
 * keeps up 10-15 m/s and 30-36 on a motorway, a train 40-80, an airliner over 150 (a high-speed
 * train's 83-97 m/s is read as a train). The gaps between bands are where the guess would be a
 * coin toss: running, slow traffic, a fast regional train beside a motorway.
 */
export const MODE_BANDS: readonly ModeBand[] = [
  { mode: 'walking', min: 0, max: 2.6 },
  { mode: 'cycling', min: 3.2, max: 8.5 },
  { mode: 'driving', min: 9.5, max: 40 },
  { mode: 'train', min: 44, max: 100 },
  { mode: 'flight', min: 110, max: Infinity },
];

/** Shorter trips are too little to tell a mode from. */
export const MODE_MIN_DISTANCE_M = 200;

export function guessMode(speed: number | null, distanceM: number): Mode {
  if (speed == null || distanceM < MODE_MIN_DISTANCE_M) return 'unknown';
  return MODE_BANDS.find((band) => speed >= band.min && speed < band.max)?.mode ?? 'unknown';
}
