import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LocationsTable } from '../db/schema.ts';
import { selectKeptPage, selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';
import { lonRanges, polesIn, type Box, type Placed } from './bbox.ts';

export type LocationRow = LocationsTable;

/**
 * The box (src/locations/bbox.ts) as a WHERE fragment over `lat` and `lon`. Posts and media
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

export function selectLocationPage(db: Db, audience: Audience, page: PageQuery, box: Box | undefined) {
  return selectPage(db, 'locations', audience, page, box ? boxFilter(box) : undefined);
}

/** A page of the points in `sqlBox` that `keeps` keeps (src/items/items.repo.ts `selectKeptPage`). */
export function selectKeptLocationPage(
  db: Db,
  audience: Audience,
  page: PageQuery,
  sqlBox: Box,
  keeps: (row: Placed) => boolean,
) {
  return selectKeptPage(db, 'locations', audience, page, boxFilter(sqlBox), keeps);
}

/** Inserts a batch in one transaction; a point already stored is skipped. Returns how many were new. */
export async function insertLocations(db: Db, rows: LocationRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .insertInto('locations')
      .values(rows)
      .onConflict((oc) => oc.columns(['user_id', 'time', 'lat', 'lon']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  });
}
