// What visit and trip detection takes and gives, and the thresholds it decides with
// (docs/history.md "Visits and trips", where each number is justified by measurement).

export interface DetectorPoint {
  time: number; // ms
  lat: number;
  lon: number;
  /** Metres (the tracker's radius of confidence); null when the tracker did not say. */
  accuracy: number | null;
  /** Metres per second as the tracker measured it; null when it did not say. */
  speed: number | null;
}

export type Mode = 'walking' | 'cycling' | 'driving' | 'train' | 'flight' | 'unknown';

export interface Visit {
  start: number; // ms
  end: number; // ms
  /** The accuracy-weighted median of the visit's points. */
  lat: number;
  lon: number;
  pointCount: number;
  confidence: number; // 0..1
}

export interface Trip {
  start: number; // ms
  end: number; // ms
  /** Movement inside the trip only: never a jump across a gap or a GPS jump. */
  distanceM: number;
  mode: Mode;
  /** Index of the visit the trip leaves (null: it starts at the edge of the data or after a gap). */
  fromIndex: number | null;
  /** Index of the visit the trip reaches (null: it ends at the edge of the data or before a gap). */
  toIndex: number | null;
}

export interface Detection {
  visits: Visit[];
  trips: Trip[];
}

/** A stay is points within this distance of their centre (plus each point's own accuracy, up to as much again)... */
export const STAY_RADIUS_M = 100;
/** ...for at least this long. */
export const STAY_MIN_MS = 5 * 60_000;
/**
 * A longer time without a point is a gap: nobody knows what happened in it. A trip never spans
 * one and its jump is never distance; a visit does only when the person was at the same place
 * on both sides, or left it just before the first point after it (WAKE_MAX_MS).
 */
export const GAP_MS = 30 * 60_000;
/** Points claiming a worse accuracy are dropped (cell-tower and coarse Wi-Fi fixes). */
export const MAX_ACCURACY_M = 200;
/** The accuracy assumed when a tracker gives none, for weights only. */
export const DEFAULT_ACCURACY_M = 25;
/** A point's weight in a stay's centre is 1 / accuracy², counting better accuracies as this (coarse fixes weigh less, fine ones alike). */
export const WEIGHT_FLOOR_M = 75;
/**
 * One to three points farther than this from the points either side of them, the way through
 * them more than twice the straight way plus this, all within SPIKE_WINDOW_MS, are a spike and
 * dropped (when the point after the run confirms the return).
 */
export const SPIKE_MIN_M = 150;
export const SPIKE_WINDOW_MS = 15 * 60_000;
/**
 * Points out of a stay's reach end it once they have lasted this long, or once one of them is a
 * radius beyond its reach; fewer are noise, and the stay goes on.
 */
export const DEPART_MS = 3 * 60_000;
/**
 * A phone that sleeps while still wakes when it moves: a stay reaches across a silence of 10
 * minutes or more to a first point elsewhere when leaving at most this long before that point
 * explains it.
 */
export const WAKE_MAX_MS = 15 * 60_000;
/** The speed assumed for that rule, and for the ends of a trip, when no points show one (a slow walk). */
export const WAKE_DEFAULT_MPS = 1.2;
/**
 * A trip's distance is summed between points at least this far apart (each from the last one
 * counted), so GPS noise around a slow walk does not add up to distance.
 */
export const TRIP_STEP_M = 30;
