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
import { insertLocations, selectLocationPage, type Box, type LocationRow } from './locations.repo.ts';
import { gridMargin, roundPoint } from './precision.ts';

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
  format?: 'json' | 'geojson' | 'gpx' | 'csv' | 'geojsonseq' | undefined;
  all?: boolean | undefined;
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
  const parts = bbox.split(',').map(Number);
  const [minLon, minLat, maxLon, maxLat] = parts as [number, number, number, number];
  const ok =
    parts.length === 4 &&
    parts.every(Number.isFinite) &&
    minLon >= -180 &&
    maxLon <= 180 &&
    minLon <= 180 &&
    maxLon >= -180 &&
    minLat >= -90 &&
    maxLat <= 90 &&
    minLat <= maxLat;
  if (!ok) {
    throw badRequest('bbox must be min_lon,min_lat,max_lon,max_lat in degrees, with min_lat <= max_lat.', [
      { path: 'querystring/bbox', message: 'is not a valid bounding box' },
    ]);
  }
  return { minLon, minLat, maxLon, maxLat };
}

function widen(box: Box, precisionM: number): Box {
  const margin = gridMargin(precisionM, Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)));
  if (margin.lon >= 180)
    return { minLon: -180, maxLon: 180, minLat: box.minLat - margin.lat, maxLat: box.maxLat + margin.lat };
  const wrap = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
  return {
    minLon: wrap(box.minLon - margin.lon),
    maxLon: wrap(box.maxLon + margin.lon),
    minLat: Math.max(-90, box.minLat - margin.lat),
    maxLat: Math.min(90, box.maxLat + margin.lat),
  };
}

function inBox(point: { lat: number; lon: number }, box: Box): boolean {
  const inLon =
    box.minLon <= box.maxLon
      ? point.lon >= box.minLon && point.lon <= box.maxLon
      : point.lon >= box.minLon || point.lon <= box.maxLon;
  return inLon && point.lat >= box.minLat && point.lat <= box.maxLat;
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
  // The box must not see the exact points of a public collection, or narrowing it would find
  // them: select with a box widened by one grid cell, then keep the rounded points inside it.
  const result = await selectLocationPage(db, audience, page, box && widen(box, precision));
  const mapped = pageOf(result, (row) => toLocation(row, ctx.owner.username, precision));
  return box ? { ...mapped, items: mapped.items.filter((point) => inBox(point, box)) } : mapped;
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
