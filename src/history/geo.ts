// The geometry the history features share: Web Mercator tiles and local days in the owner's
// time zone. Distance on the sphere and the rule for jumps are src/lib/distance.ts.
import { offsetMs, type OffsetSpans } from '../lib/time.ts';

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
