// Boxes over items whose public ones are served rounded (docs/privacy.md "Filters and paging see
// only the snapped places"): the application decides on the served place, the database reads a
// superset first (src/privacy/served-box.repo.ts).
import { boxContains, type Box } from '../lib/box.ts';
import { gridMargin, roundPoint } from './precision.ts';
import { HIDES_NOTHING, type HideRule } from './zones.ts';

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
 * reads a superset first (src/privacy/served-box.repo.ts `placeFilter`), within `sqlBox`.
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
 * the answer shows (docs/privacy.md). A public item a privacy zone hides (`hides`) is shown
 * nowhere, so no box holds it.
 */
export function servedPlaceFilter(box: Box, precisionM: number, hides: HideRule = HIDES_NOTHING): PlaceFilter {
  return {
    box,
    precisionM,
    sqlBox: widenBox(box, precisionM),
    keeps: (row) => {
      if (row.lat === null || row.lon === null) return false;
      const exact = { lat: row.lat, lon: row.lon };
      if (row.scope !== 'public') return boxContains(box, exact);
      return !hides(exact.lat, exact.lon) && boxContains(box, roundPoint(exact.lat, exact.lon, precisionM));
    },
  };
}
