import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LocationsTable } from '../db/schema.ts';
import { selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

export type LocationRow = LocationsTable;

export interface Box {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

function boxFilter(box: Box): Expression<SqlBool> {
  const lat = sql.ref('lat');
  const lon = sql.ref('lon');
  const inLat = sql<SqlBool>`${lat} >= ${box.minLat} and ${lat} <= ${box.maxLat}`;
  // RFC 7946 5.2: a box whose west edge is east of its east edge crosses the antimeridian.
  const inLon =
    box.minLon <= box.maxLon
      ? sql<SqlBool>`${lon} >= ${box.minLon} and ${lon} <= ${box.maxLon}`
      : sql<SqlBool>`(${lon} >= ${box.minLon} or ${lon} <= ${box.maxLon})`;
  return sql<SqlBool>`(${inLat} and ${inLon})`;
}

export function selectLocationPage(db: Db, audience: Audience, page: PageQuery, box: Box | undefined) {
  return selectPage(db, 'locations', audience, page, box ? boxFilter(box) : undefined);
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
