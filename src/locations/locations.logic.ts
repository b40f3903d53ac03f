import type { Db } from '../db/database.ts';
import type { Auth } from '../http/auth.ts';
import { badRequest } from '../http/errors.ts';
import { pageOf, readItem, toPageQuery, type CollectionParams, type Page, type Scope } from '../items/items.logic.ts';
import type { ListContext } from '../items/items.routes.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { findUserById } from '../users/users.repo.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { parseBatch } from './locations.ingest.ts';
import { readBox, servedPlaceFilter, type Box } from './bbox.ts';
import { insertLocations, selectKeptLocationPage, selectLocationPage, type LocationRow } from './locations.repo.ts';
import { roundPoint } from './precision.ts';

export interface Location {
  id: string;
  username: string;
  scope: Scope;
  time: number;
  lat: number;
  lon: number;
  alt: number | null;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
  source: string | null;
  created_at: number;
}

export interface LocationsParams extends CollectionParams {
  bbox?: string | undefined;
  format?: 'json' | 'geojson' | 'gpx' | undefined;
}

/**
 * The API object. A public point is always served at the owner's precision, to everyone
 * including the owner (who reads the exact points in the private collection of their own).
 */
export function toLocation(row: LocationRow, username: string, precisionM: number): Location {
  const rounded = row.scope === 'public' ? roundPoint(row.lat, row.lon, precisionM) : row;
  const accuracy = row.scope === 'public' && precisionM > 0 ? Math.max(row.accuracy ?? 0, precisionM) : row.accuracy;
  return {
    id: row.id,
    username,
    scope: row.scope,
    time: msToSeconds(row.time),
    lat: rounded.lat,
    lon: rounded.lon,
    alt: row.alt,
    accuracy,
    speed: row.speed,
    heading: row.heading,
    source: row.source,
    created_at: msToSeconds(row.created_at),
  };
}

export function parseBox(bbox: string): Box {
  const box = readBox(bbox);
  if (!box) {
    throw badRequest(
      'bbox must be min_lon,min_lat,max_lon,max_lat: four decimal numbers in degrees, longitudes from -180 to ' +
        '180, latitudes from -90 to 90, with min_lat <= max_lat.',
      [{ path: 'querystring/bbox', message: 'is not a valid bounding box' }],
    );
  }
  return box;
}

export async function listLocations(db: Db, ctx: ListContext<LocationsParams>): Promise<Page<Location>> {
  const box = ctx.query.bbox === undefined ? undefined : parseBox(ctx.query.bbox);
  const page = toPageQuery(ctx.query);
  const audience = { owner: ctx.owner.id, scope: ctx.scope };
  if (ctx.scope === 'private') {
    const result = await selectLocationPage(db, audience, page, box);
    return pageOf(result, (row) => toLocation(row, ctx.owner.username, 0));
  }
  const { publicLocationPrecisionM: precision } = await getSettings(db, ctx.owner.id);
  const toObject = (row: LocationRow) => toLocation(row, ctx.owner.username, precision);
  if (!box) return pageOf(await selectLocationPage(db, audience, page, undefined), toObject);
  // The box must not see the exact points of a public collection, or narrowing it would find
  // them (through the items, and through the Link header's cursor and whether there is one).
  // The database reads the points of a box widened by one grid cell, and the page is made of
  // those whose rounded point is in the box (docs/privacy.md).
  //
  // Rounded in the application, not in SQL nor in stored columns: the one function that rounds
  // what is shown also decides what is selected, so the two can never disagree at a cell's
  // edge (SQLite, PostgreSQL and JavaScript round halves and compute cos() each their own way),
  // and a change of the precision setting rewrites nothing. The cost is the points of the one
  // cell-wide rim around the box that the database reads and the application drops.
  const { sqlBox, keeps } = servedPlaceFilter(box, precision);
  return pageOf(await selectKeptLocationPage(db, audience, page, sqlBox, keeps), toObject);
}

export async function getLocation(db: Db, id: string, auth: Auth | undefined): Promise<Location> {
  const row = await readItem(db, 'locations', id, auth);
  const owner = await findUserById(db, row.user_id);
  const { publicLocationPrecisionM } = await getSettings(db, row.user_id);
  return toLocation(row, owner?.username ?? '', publicLocationPrecisionM);
}

/** Stores a batch for the token's owner; the same point (time, lat, lon) twice is stored once. */
export async function addLocations(
  db: Db,
  userId: string,
  body: unknown,
): Promise<{ stored: number; duplicates: number }> {
  const points = parseBatch(body);
  const { defaultScopes } = await getSettings(db, userId);
  const now = nowMs();
  const rows: LocationRow[] = points.map((point) => ({
    user_id: userId,
    id: newId(),
    scope: point.scope ?? defaultScopes.locations,
    time: point.timeMs,
    created_at: now,
    lat: point.lat,
    lon: point.lon,
    alt: point.alt,
    accuracy: point.accuracy,
    speed: point.speed,
    heading: point.heading,
    source: null,
  }));
  const stored = await insertLocations(db, rows);
  return { stored, duplicates: rows.length - stored };
}
