import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import type { PointInput } from './point.ts';
import { badRequest, invalid } from '../core/errors.ts';
import { pageOf, toPageQuery, type Page } from '../items/items.logic.ts';
import type { Scope } from '../items/items.schemas.ts';
import { readItem, readsExactly, requirePrivateReads } from '../items/access.ts';
import { deleteOwnItem } from '../items/writes.logic.ts';
import type { ListContext } from '../items/kinds.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs, secondsToMs, TIME_LIMIT_MESSAGE, withinTimeLimit } from '../lib/time.ts';
import { findUserById } from '../users/users.repo.ts';
import { readBox, type Box } from '../lib/box.ts';
import { servedPlaceFilter } from '../privacy/served-box.ts';
import { EXACT_PLACES, placesForReader, publicPlacesOf, type PublicPlaces } from '../privacy/places.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { parseBatch } from './locations.ingest.ts';
import { pointBefore } from './points.repo.ts';
import { queueHistoryRefresh } from './refresh.jobs.ts';
import {
  deleteLocationRange,
  insertLocationsGrouped,
  selectKeptLocationPage,
  selectLocationPage,
  type LocationFields,
  type LocationRow,
} from './locations.repo.ts';
import type { Location, LocationsParams } from './locations.schemas.ts';

/**
 * The API object. A public point is shown as `places` shows it (src/privacy/places.ts): to
 * strangers at the owner's precision with nothing else measured, to the owner reading with
 * `get_private_scope` exactly (`EXACT_PLACES`).
 */
export function toLocation(row: LocationFields, username: string, places: PublicPlaces): Location {
  // A hidden point reaches here only for its owner, who reads it exactly.
  const shown = row.scope === 'public' ? places.point(row) : row;
  return {
    id: row.id,
    username,
    scope: row.scope,
    time: msToSeconds(row.time),
    lat: shown.lat,
    lon: shown.lon,
    alt: shown.alt,
    accuracy: shown.accuracy,
    speed: shown.speed,
    heading: shown.heading,
    source: shown.source,
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
  const page = toPageQuery(ctx.query, ctx.cursors);
  const audience = { owner: ctx.owner.id, scope: ctx.scope };
  if (ctx.scope === 'private' || ctx.exact) {
    // The owner's own reading: exact places, so the box is the exact one too.
    const result = await selectLocationPage(db, audience, page, box);
    return pageOf(result, (row) => toLocation(row, ctx.owner.username, EXACT_PLACES), ctx.cursors);
  }
  const places = await publicPlacesOf(db, ctx.owner.id);
  const toObject = (row: LocationFields) => toLocation(row, ctx.owner.username, places);
  if (!box) return pageOf(await selectLocationPage(db, audience, page, undefined), toObject, ctx.cursors);
  // The box must not see the exact points of a public collection, or narrowing it would find
  // them (through the items, and through the Link header's cursor and whether there is one).
  // The page is made of the points whose rounded place is in the box, read on until it has
  // `count` of them and knows whether one more follows (docs/privacy.md).
  //
  // Decided in the application, with the one function that rounds what is shown, so selecting
  // and showing can never disagree at a cell's edge (SQLite, PostgreSQL and JavaScript round
  // halves and compute cos() each their own way); SQL computes the grid too, from the setting,
  // but only as a first cut that lets through every point it is unsure of. Not stored columns:
  // a change of the precision would rewrite every point of the person (bench/public-bbox.ts).
  return pageOf(
    await selectKeptLocationPage(db, audience, page, servedPlaceFilter(box, places.precisionM, places.hides)),
    toObject,
    ctx.cursors,
  );
}

export async function getLocation(db: Db, id: string, auth: Auth | undefined): Promise<Location> {
  const row = await readItem(db, 'locations', id, auth);
  const owner = await findUserById(db, row.user_id);
  const places = await placesForReader(db, row.user_id, readsExactly(row.user_id, auth), [row]);
  return toLocation(row, owner?.username ?? '', places);
}

/**
 * The caller's own latest point, of either scope and hidden by a zone or not, exactly: their
 * whole history is theirs to read with `get_private_scope` (the Settings page's preview).
 */
export async function latestOwnPoint(db: Db, auth: Auth): Promise<{ lat: number; lon: number } | undefined> {
  requirePrivateReads(auth);
  const row = await pointBefore(db, auth.userId, Number.MAX_SAFE_INTEGER);
  return row && { lat: row.lat, lon: row.lon };
}

/** Stores a batch for the token's owner; the same point (time, lat, lon) twice is stored once. */
export async function addLocations(
  db: Db,
  userId: string,
  body: unknown,
): Promise<{ stored: number; duplicates: number }> {
  return storePoints(db, userId, parseBatch(body), null);
}

/**
 * Stores checked points for a person in one transaction, each with `source` (the service that
 * brought it, or null) and, when the point names none, the person's default scope for
 * locations. The same point (time, lat, lon) twice is stored once and counted as a duplicate.
 */
export async function storePoints(
  db: Db,
  userId: string,
  points: readonly PointInput[],
  source: string | null,
): Promise<{ stored: number; duplicates: number }> {
  if (points.length === 0) return { stored: 0, duplicates: 0 };
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
    source,
  }));
  const stored = await insertLocationsGrouped(db, rows);
  if (stored > 0) await queueHistoryRefresh(db, userId, now);
  return { stored, duplicates: rows.length - stored };
}

/** DELETE /locations/id/<id>. */
export async function deleteLocation(db: Db, id: string, auth: Auth): Promise<void> {
  await deleteOwnItem(db, 'locations', id, auth);
}

export interface LocationRange {
  since_time: number;
  until_time: number;
  scope?: Scope | undefined;
}

/**
 * DELETE /locations?since_time&until_time[&scope]: the caller's points with
 * since_time <= time < until_time. Without `scope` both scopes go, which needs
 * `get_private_scope`; `scope=public` needs only `write_locations`.
 */
export async function deleteLocations(db: Db, auth: Auth, range: LocationRange): Promise<{ deleted: number }> {
  const errors = (['since_time', 'until_time'] as const)
    .filter((name) => !withinTimeLimit(range[name]))
    .map((name) => ({ path: `querystring/${name}`, message: TIME_LIMIT_MESSAGE }));
  if (errors.length > 0) {
    throw invalid('The request is invalid', errors);
  }
  const scopes: Scope[] = range.scope ? [range.scope] : ['public', 'private'];
  if (scopes.includes('private')) requirePrivateReads(auth);
  const sinceMs = secondsToMs(range.since_time);
  const untilMs = secondsToMs(range.until_time);
  if (sinceMs >= untilMs) return { deleted: 0 };
  return { deleted: await deleteLocationRange(db, auth.userId, { sinceMs, untilMs, scopes }) };
}
