// Distance on the sphere, and the rules every feature that measures movement shares
// (docs/history.md "Rules for distance and movement"): a physically impossible segment is a GPS
// jump; a long gap between points breaks a drawn line.

const EARTH_RADIUS_M = 6_371_008.8; // the mean radius (IUGG)

/** Great-circle distance in metres (haversine); the short way round, across the antimeridian too. */
export function distanceM(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Faster than this between two consecutive points is a GPS jump, not travel: 300 m/s is above
 * an airliner's ground speed in all but the strongest jet stream. Such a segment counts for
 * nothing (distance, time moving); the points themselves still count.
 */
export const MAX_SPEED_MPS = 300;
/** Slower than this is standing still with GPS noise (about a slow walk's third). */
export const MOVING_MIN_MPS = 0.5;
/** A longer gap between two points is time nobody knows about: a drawn line breaks there. */
export const MOVING_MAX_GAP_MS = 10 * 60_000;

export interface TimedPoint {
  time: number; // ms
  lat: number;
  lon: number;
}

/** The distance a segment counts for: 0 for an impossible jump. */
export function segmentM(a: TimedPoint, b: TimedPoint): number {
  const metres = distanceM(a, b);
  const seconds = (b.time - a.time) / 1000;
  if (metres === 0) return 0;
  return seconds > 0 && metres / seconds <= MAX_SPEED_MPS ? metres : 0;
}
