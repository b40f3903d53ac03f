// Bounding boxes (docs/privacy.md "Boxes"): what a box contains, for collections and views alike.
//
//   min_lon,min_lat,max_lon,max_lat   degrees; -180 <= lon <= 180, -90 <= lat <= 90, min_lat <= max_lat
//
// Edges are inclusive. min_lon <= max_lon: the longitudes between them (equal: one meridian,
// and with min_lat = max_lat one point). min_lon > max_lon: the box crosses the antimeridian
// (RFC 7946 5.2): lon >= min_lon or lon <= max_lon. -180 and 180 are one meridian, so a box
// reaching one reaches the other and -180,..,180 spans all 360 degrees. A pole is one point on
// every meridian: a point at lat 90 (-90) is in every box whose max_lat (min_lat) reaches it.

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
