// Public locations are served at the owner's `public_location_precision_m` (docs/api.md "Objects").
// Rounding to a fixed grid, not random jitter: the same point always gives the same answer, so
// reading it many times and averaging recovers nothing.

// The grid itself is grid.js, plain JavaScript the Settings page's preview also runs in the browser.
import { gridLatStep, gridLonStep } from './grid.js';

export { gridLatStep, gridLonStep, roundPoint } from './grid.js';

export interface GridStep {
  lat: number;
  lon: number;
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
