// Public locations are served at the owner's `public_location_precision_m` (docs/api.md "Objects").
// Rounding to a fixed grid, not random jitter: the same point always gives the same answer, so
// reading it many times and averaging recovers nothing.

const METRES_PER_DEGREE = 111_320; // along a meridian, and along the equator

const roundTo6 = (value: number) => Math.round(value * 1e6) / 1e6;

export interface GridStep {
  lat: number;
  lon: number;
}

/** The grid's rows: degrees of latitude between them. SQL uses this very number (src/locations/locations.repo.ts). */
export function gridLatStep(precisionM: number): number {
  return precisionM / METRES_PER_DEGREE;
}

/** The grid at a (rounded) latitude: longitude degrees shrink with cos(latitude). */
export function gridLonStep(latStep: number, roundedLat: number): number {
  const cos = Math.cos((roundedLat * Math.PI) / 180);
  return cos * 360 <= latStep ? 360 : Math.min(360, latStep / cos);
}

/** The centre of the grid cell a point falls in, for a grid of about `precisionM` metres. */
export function roundPoint(lat: number, lon: number, precisionM: number): { lat: number; lon: number } {
  if (precisionM <= 0) return { lat, lon };
  const latStep = gridLatStep(precisionM);
  const roundedLat = Math.max(-90, Math.min(90, Math.round(lat / latStep) * latStep));
  // The longitude grid is chosen by the rounded latitude, so every point of one cell row
  // shares one grid: deterministic, whatever the exact latitude was.
  const step = gridLonStep(latStep, roundedLat);
  let roundedLon = Math.round(lon / step) * step;
  if (roundedLon > 180) roundedLon -= 360;
  if (roundedLon < -180) roundedLon += 360;
  return { lat: roundTo6(roundedLat), lon: roundTo6(roundedLon) };
}

/**
 * How far (degrees) a rounded point can lie from the exact one, for points up to `maxAbsLat`
 * from the equator: a bbox is widened by this before the rounded points are filtered again.
 */
export function gridMargin(precisionM: number, maxAbsLat: number): GridStep {
  if (precisionM <= 0) return { lat: 0, lon: 0 };
  const latStep = gridLatStep(precisionM);
  return { lat: latStep, lon: gridLonStep(latStep, Math.min(90, maxAbsLat + latStep)) };
}
