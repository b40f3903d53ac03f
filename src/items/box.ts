// Bounding boxes (docs/privacy.md "Boxes"): what a box contains, for collections and views alike.
//
//   min_lon,min_lat,max_lon,max_lat   degrees; -180 <= lon <= 180, -90 <= lat <= 90, min_lat <= max_lat
//
// Edges are inclusive. min_lon <= max_lon: the longitudes between them (equal: one meridian,
// and with min_lat = max_lat one point). min_lon > max_lon: the box crosses the antimeridian
// (RFC 7946 5.2): lon >= min_lon or lon <= max_lon. -180 and 180 are one meridian, so a box
// reaching one reaches the other and -180,..,180 spans all 360 degrees. A pole is one point on
// every meridian: a point at lat 90 (-90) is in every box whose max_lat (min_lat) reaches it.
import { gridMargin, roundPoint } from '../privacy/precision.ts';

export interface Box {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** A plain decimal number: no exponent, no hex, no empty string (which Number() reads as 0). */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** The box a `min_lon,min_lat,max_lon,max_lat` text names, or undefined when it names none. */
export function readBox(text: string): Box | undefined {
  const parts = text.split(',');
  if (parts.length !== 4 || !parts.every((part) => DECIMAL.test(part))) return undefined;
  return checkedBox(parts.map(Number));
}

/** The box of four numbers `[min_lon, min_lat, max_lon, max_lat]`, or undefined when they name none. */
export function checkedBox(values: number[]): Box | undefined {
  if (values.length !== 4 || !values.every(Number.isFinite)) return undefined;
  const [minLon, minLat, maxLon, maxLat] = values as [number, number, number, number];
  const lonOk = [minLon, maxLon].every((lon) => lon >= -180 && lon <= 180);
  const latOk = [minLat, maxLat].every((lat) => lat >= -90 && lat <= 90) && minLat <= maxLat;
  return lonOk && latOk ? { minLon, minLat, maxLon, maxLat } : undefined;
}

/** The longitudes a box covers, as closed intervals within [-180, 180]. */
export function lonRanges(box: Box): [number, number][] {
  const { minLon: west, maxLon: east } = box;
  if (west > east)
    return [
      [west, 180],
      [-180, east],
    ];
  const ranges: [number, number][] = [[west, east]];
  // -180 and 180 are the same meridian.
  if (west === -180 && east !== 180) ranges.push([180, 180]);
  if (east === 180 && west !== -180) ranges.push([-180, -180]);
  return ranges;
}

/** The poles a box reaches, as latitudes. */
export function polesIn(box: Box): number[] {
  return [-90, 90].filter((pole) => pole >= box.minLat && pole <= box.maxLat);
}

export function boxContains(box: Box, point: { lat: number; lon: number }): boolean {
  if (point.lat < box.minLat || point.lat > box.maxLat) return false;
  if (point.lat === 90 || point.lat === -90) return true;
  return lonRanges(box).some(([west, east]) => point.lon >= west && point.lon <= east);
}

/**
 * Slack for `roundPoint`'s last step (six decimals, up to 5e-7 degrees) and float error, so the
 * widened box below always holds every point whose rounded place is in the box.
 */
const SLACK_DEG = 1e-6;

/**
 * A box around `box` that holds every exact point whose place rounded at `precisionM` lies in
 * `box`: grown by one grid cell each way. Only ever a first cut for the database; what is
 * served is decided on the rounded points (`servedPlaceFilter`).
 */
export function widenBox(box: Box, precisionM: number): Box {
  if (precisionM <= 0) return box;
  const margin = gridMargin(precisionM, Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)));
  const dLat = margin.lat + SLACK_DEG;
  const dLon = margin.lon + SLACK_DEG;
  const minLat = Math.max(-90, box.minLat - dLat);
  const maxLat = Math.min(90, box.maxLat + dLat);
  const span = box.minLon <= box.maxLon ? box.maxLon - box.minLon : box.maxLon - box.minLon + 360;
  // Grown past a whole turn, the edges would wrap onto each other: every longitude.
  if (span + 2 * dLon >= 360) return { minLon: -180, maxLon: 180, minLat, maxLat };
  const wrap = (lon: number) => (lon < -180 ? lon + 360 : lon > 180 ? lon - 360 : lon);
  return { minLon: wrap(box.minLon - dLon), maxLon: wrap(box.maxLon + dLon), minLat, maxLat };
}

/** An item's place as the database holds it: posts and media may have none. */
export interface Placed {
  scope: 'public' | 'private';
  lat: number | null;
  lon: number | null;
}

/**
 * A box over items whose public ones are served at `precisionM`: `keeps` decides; the database
 * reads a superset first (src/items/box.repo.ts `placeFilter`), within `sqlBox`.
 */
export interface PlaceFilter {
  box: Box;
  precisionM: number;
  sqlBox: Box;
  keeps: (row: Placed) => boolean;
}

/**
 * How a box selects items whose public ones are served at `precisionM`: the database reads a
 * superset (`sqlBox`), and `keeps` decides on the place each item is served at, so which items
 * a page holds, whether there is a next page and where its cursor points depend only on what
 * the answer shows (docs/privacy.md).
 */
export function servedPlaceFilter(box: Box, precisionM: number): PlaceFilter {
  return {
    box,
    precisionM,
    sqlBox: widenBox(box, precisionM),
    keeps: (row) => {
      if (row.lat === null || row.lon === null) return false;
      const exact = { lat: row.lat, lon: row.lon };
      return boxContains(box, row.scope === 'public' ? roundPoint(exact.lat, exact.lon, precisionM) : exact);
    },
  };
}
