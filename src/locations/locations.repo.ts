import { sql, type Expression, type SqlBool } from 'kysely';
import { insertManyIgnoringConflicts } from '../db/bulk.ts';
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

const LOCATION_COLUMNS = [
  'user_id',
  'id',
  'scope',
  'time',
  'created_at',
  'lat',
  'lon',
  'alt',
  'accuracy',
  'speed',
  'heading',
  'source',
] as const satisfies readonly (keyof LocationRow)[];

/** Inserts a batch in one statement (atomic); a point already stored is skipped. Returns how many were new. */
export function insertLocations(db: Db, rows: LocationRow[]): Promise<number> {
  return insertManyIgnoringConflicts(db, 'locations', LOCATION_COLUMNS, rows, ['user_id', 'time', 'lat', 'lon']);
}
