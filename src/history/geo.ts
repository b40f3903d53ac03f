// The geometry the history features share: distance on the sphere, the rule for physically
// impossible jumps, Web Mercator tiles, and local days in the owner's time zone
// (docs/history.md "Rules").
import { offsetMs, type OffsetSpans } from '../lib/time.ts';

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
/** A longer gap between two points is time nobody knows about: it is not time moving. */
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

/** The time a segment counts as moving, in seconds. */
export function movingS(a: TimedPoint, b: TimedPoint, metres: number): number {
  const ms = b.time - a.time;
  if (ms <= 0 || ms > MOVING_MAX_GAP_MS || metres === 0) return 0;
  return metres / (ms / 1000) >= MOVING_MIN_MPS ? ms / 1000 : 0;
}

// Web Mercator (EPSG:3857) as tiles use it: x and y as fractions of the world, y down.
export const MAX_LAT = 85.0511;

export function mercatorX(lon: number): number {
  return (lon + 180) / 360;
}

export function mercatorY(lat: number): number {
  const clamped = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
  const rad = (clamped * Math.PI) / 180;
  return (1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2;
}

/** Longitude and latitude of a tile's north-west corner (x, y at zoom z). */
export function tileCorner(z: number, x: number, y: number): { lon: number; lat: number } {
  const n = 2 ** z;
  const lon = (x / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return { lon, lat };
}

/** A tile's bounds in degrees. */
export function tileBounds(z: number, x: number, y: number) {
  const nw = tileCorner(z, x, y);
  const se = tileCorner(z, x + 1, y + 1);
  return { minLon: nw.lon, maxLon: se.lon, minLat: se.lat, maxLat: nw.lat };
}

/** Days since 1970-01-01 of a UTC instant's date in the zone. */
export function localDay(ms: number, timeZone: string): number {
  return Math.floor((ms + offsetMs(ms, timeZone)) / 86_400_000);
}

/** Where the zone's offset stays constant within [start, end): the spans with their offset. */
export function offsetSpans(startMs: number, endMs: number, timeZone: string): OffsetSpans {
  const spans = [{ start: startMs, offset: offsetMs(startMs, timeZone) }];
  const step = 86_400_000;
  for (let at = startMs + step; at < endMs + step; at += step) {
    const probe = Math.min(at, endMs);
    const offset = offsetMs(probe, timeZone);
    if (offset === spans.at(-1)!.offset) continue;
    // A change within the last day: find the second it happens. Zones change their offset
    // on a whole minute, the one in (low, high].
    let low = probe - step;
    let high = probe;
    while (high - low > 1000) {
      const mid = Math.floor((low + high) / 2);
      if (offsetMs(mid, timeZone) === offset) high = mid;
      else low = mid;
    }
    spans.push({ start: Math.max(low + 1, Math.floor(high / 60_000) * 60_000), offset });
    if (probe === endMs) break;
  }
  return spans;
}
