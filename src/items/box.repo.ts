// Boxes in SQL (src/items/box.ts, docs/privacy.md "Boxes"): the exact box over `lat` and `lon`.
import { sql, type Expression, type SqlBool } from 'kysely';
import { lonRanges, polesIn, type Box } from './box.ts';

/**
 * The box (src/items/box.ts) as a WHERE fragment over `lat` and `lon`. Posts and media
 * without a location have null lat/lon: no comparison holds, so they drop out.
 */
export function boxFilter(box: Box): Expression<SqlBool> {
  const lat = sql.ref('lat');
  const lon = sql.ref('lon');
  const inLat = sql<SqlBool>`${lat} >= ${box.minLat} and ${lat} <= ${box.maxLat}`;
  const ranges = lonRanges(box);
  if (ranges.some(([west, east]) => west === -180 && east === 180)) return sql<SqlBool>`(${inLat})`;
  const anywhere = [
    ...ranges.map(([west, east]) => sql<SqlBool>`(${lon} >= ${west} and ${lon} <= ${east})`),
    ...polesIn(box).map((pole) => sql<SqlBool>`${lat} = ${pole}`),
  ];
  return sql<SqlBool>`(${inLat} and (${sql.join(anywhere, sql` or `)}))`;
}
