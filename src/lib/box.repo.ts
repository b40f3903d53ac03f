// Boxes in SQL (src/lib/box.ts, docs/privacy.md "Boxes"): the exact box over `lat` and `lon`.
import { sql, type Expression, type SqlBool } from 'kysely';
import { lonRanges, polesIn, type Box } from './box.ts';

/** Rows of latitude per degree: the second key of the index locations_position_rows (migration 0025). */
const ROWS_PER_DEGREE = 64;
/** A box over at most this many rows asks for each; a taller one reads the band between. */
const ROWS_LISTED = 64;

/**
 * The box's rows of latitude, as the index of migration 0025 keys them (the expression written
 * as there). Implied by the box's latitudes; for locations it is what lets a small box seek each
 * row's range of longitude instead of reading its band round the world.
 */
function latRows(box: Box): Expression<SqlBool> {
  const row = sql`floor(${sql.ref('lat')} * ${sql.lit(ROWS_PER_DEGREE)})`;
  const first = Math.floor(box.minLat * ROWS_PER_DEGREE);
  const last = Math.floor(box.maxLat * ROWS_PER_DEGREE);
  if (last - first >= ROWS_LISTED) return sql<SqlBool>`${row} >= ${first} and ${row} <= ${last}`;
  const rows = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  return sql<SqlBool>`${row} in (${sql.join(rows)})`;
}

/**
 * The box (src/lib/box.ts) as a WHERE fragment over `lat` and `lon`. Posts and media
 * without a location have null lat/lon: no comparison holds, so they drop out.
 */
export function boxFilter(box: Box): Expression<SqlBool> {
  const lat = sql.ref('lat');
  const lon = sql.ref('lon');
  const inLat = sql<SqlBool>`${latRows(box)} and ${lat} >= ${box.minLat} and ${lat} <= ${box.maxLat}`;
  const ranges = lonRanges(box);
  if (ranges.some(([west, east]) => west === -180 && east === 180)) return sql<SqlBool>`(${inLat})`;
  const anywhere = [
    ...ranges.map(([west, east]) => sql<SqlBool>`(${lon} >= ${west} and ${lon} <= ${east})`),
    ...polesIn(box).map((pole) => sql<SqlBool>`${lat} = ${pole}`),
  ];
  return sql<SqlBool>`(${inLat} and (${sql.join(anywhere, sql` or `)}))`;
}
