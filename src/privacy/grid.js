// The grid public places are snapped to (docs/privacy.md "The grid"), as a plain ES module with
// no imports: the server uses it through precision.ts, and the Settings page's preview loads
// this very file in the browser (served as /assets/public/<version>/precision.js, docs/maps.md),
// so the page shows the rounding the server does, not a copy of it. Types: grid.d.ts.

const METRES_PER_DEGREE = 111_320; // along a meridian, and along the equator

const roundTo6 = (value) => Math.round(value * 1e6) / 1e6;

/** The grid's rows: degrees of latitude between them. SQL uses this very number (src/locations/locations.repo.ts). */
export function gridLatStep(precisionM) {
  return precisionM / METRES_PER_DEGREE;
}

/** The grid at a (rounded) latitude: longitude degrees shrink with cos(latitude). */
export function gridLonStep(latStep, roundedLat) {
  const cos = Math.cos((roundedLat * Math.PI) / 180);
  return cos * 360 <= latStep ? 360 : Math.min(360, latStep / cos);
}

/** The centre of the grid cell a point falls in, for a grid of about `precisionM` metres. */
export function roundPoint(lat, lon, precisionM) {
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
