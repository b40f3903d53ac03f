// Boxes in SQL (src/lib/box.ts, docs/privacy.md "Boxes"): the exact box over `lat` and `lon`.
import { sql, type Expression, type SqlBool } from 'kysely';
import { lonRanges, polesIn, type Box } from './box.ts';

/**
 * Cells per degree of the index locations_position_cells (migration 0051), whose keys after the
 * person are `floor(lat * 256)` and `floor(lon * 256)`. A power of two: multiplying by it is
 * exact, so JavaScript, SQLite and PostgreSQL put a coordinate in the same cell.
 */
const CELLS_PER_DEGREE = 256;
/** A box over at most this many rows of cells asks for each; a taller one reads the band between. */
const ROWS_LISTED = 256;

/** The index's expression for a coordinate's cell, written as migration 0051 writes it. */
function cellOf(column: 'lat' | 'lon'): Expression<number> {
  return sql<number>`floor(${sql.ref(column)} * ${sql.lit(CELLS_PER_DEGREE)})`;
}

/** A latitude's row or a longitude's column of cells in that index. */
export function cellNumber(degrees: number): number {
  return Math.floor(degrees * CELLS_PER_DEGREE);
}

/**
 * The box's rows of cells, as the index keys them. Implied by the box's latitudes; it is what
 * lets a small box seek each row (and in it, the cells of its longitudes) instead of reading its
 * band round the world.
 */
function cellRows(box: Box): Expression<SqlBool> {
  const first = cellNumber(box.minLat);
  const last = cellNumber(box.maxLat);
  if (last - first >= ROWS_LISTED) return sql<SqlBool>`${cellOf('lat')} between ${first} and ${last}`;
  const rows = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  return sql<SqlBool>`${cellOf('lat')} in (${sql.join(rows)})`;
}

/**
 * The box (src/lib/box.ts) as a WHERE fragment over `lat` and `lon`, with the cells it covers
 * (implied by the exact conditions) for the index. Posts and media without a location have null
 * lat/lon: no comparison holds, so they drop out.
 */
export function boxFilter(box: Box): Expression<SqlBool> {
  const lat = sql.ref('lat');
  const lon = sql.ref('lon');
  const inLat = sql<SqlBool>`${cellRows(box)} and ${lat} >= ${box.minLat} and ${lat} <= ${box.maxLat}`;
  const ranges = lonRanges(box);
  if (ranges.some(([west, east]) => west === -180 && east === 180)) return sql<SqlBool>`(${inLat})`;
  const anywhere = [
    ...ranges.map(
      ([west, east]) =>
        sql<SqlBool>`(${cellOf('lon')} between ${cellNumber(west)} and ${cellNumber(east)}
          and ${lon} >= ${west} and ${lon} <= ${east})`,
    ),
    ...polesIn(box).map((pole) => sql<SqlBool>`${lat} = ${pole}`),
  ];
  return sql<SqlBool>`(${inLat} and (${sql.join(anywhere, sql` or `)}))`;
}
