// Places (docs/api.md "Visits and trips"): reading needs `get_private_scope`; every change needs
// `write_locations` (the route's) and, because its answer shows the place, `get_private_scope`
// too. Another person's place is the same 404 as a missing id.
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { invalid, notFound } from '../core/errors.ts';
import { requirePrivateReads } from '../items/access.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { labelOf } from './label.ts';
import {
  countPlaceRows,
  countVisitsAt,
  deletePlaceRow,
  findPlaceRow,
  forgetPlaceCorrections,
  insertPlaceRows,
  markPlaceDays,
  markVisitDaysNear,
  movePlaceVisits,
  placeRows,
  updatePlaceRow,
  type PlaceRow,
} from './places.repo.ts';
import {
  DEFAULT_RADIUS_M,
  PLACES_PER_USER_MAX,
  type NewPlace,
  type Place,
  type PlaceChange,
  type PlaceRef,
} from './places.schemas.ts';

const noSuchPlace = () => notFound('No such place.');

export function toPlaceRef(row: PlaceRow): PlaceRef {
  return { id: row.id, name: row.name, lat: row.lat, lon: row.lon, city: row.city, country: row.country };
}

export function toPlace(row: PlaceRow, visits: number): Place {
  return { ...toPlaceRef(row), radius_m: row.radius_m, visits, created_at: msToSeconds(row.created_at) };
}

/** A new place's row, labelled offline by the nearest town and its country. */
export function placeRow(
  userId: string,
  at: { lat: number; lon: number; radiusM?: number; name?: string | null },
  now: number,
): PlaceRow {
  const label = labelOf(at.lat, at.lon);
  return {
    id: newId(),
    user_id: userId,
    name: at.name ?? null,
    lat: at.lat,
    lon: at.lon,
    radius_m: at.radiusM ?? DEFAULT_RADIUS_M,
    city: label.city,
    country: label.country,
    created_at: now,
  };
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalid('The place is invalid', [{ path: 'body/name', message: 'must not be blank' }]);
  return trimmed;
}

export async function listPlaces(db: Db, auth: Auth): Promise<Place[]> {
  requirePrivateReads(auth);
  return (await placeRows(db, auth.userId)).map((row) => toPlace(row, Number(row.visits)));
}

export async function getPlace(db: Db, auth: Auth, id: string): Promise<Place> {
  requirePrivateReads(auth);
  const row = await findPlaceRow(db, auth.userId, id);
  if (!row) throw noSuchPlace();
  return toPlace(row, await countVisitsAt(db, auth.userId, id));
}

/** A place drawn by the person; the visits around it join it at the next detection. */
export async function createPlace(db: Db, auth: Auth, input: NewPlace): Promise<Place> {
  requirePrivateReads(auth);
  const name = checkedName(input.name);
  return db.transaction().execute(async (trx) => {
    if ((await countPlaceRows(trx, auth.userId)) >= PLACES_PER_USER_MAX) {
      throw invalid(`At most ${PLACES_PER_USER_MAX} places.`, [{ path: 'body', message: 'too many places' }]);
    }
    const row = placeRow(auth.userId, { lat: input.lat, lon: input.lon, radiusM: input.radius_m, name }, nowMs());
    await insertPlaceRows(trx, [row]);
    await markVisitDaysNear(trx, auth.userId, row);
    return toPlace(row, 0);
  });
}

export async function changePlace(db: Db, auth: Auth, id: string, change: PlaceChange): Promise<Place> {
  requirePrivateReads(auth);
  return db.transaction().execute(async (trx) => {
    const row = await findPlaceRow(trx, auth.userId, id);
    if (!row) throw noSuchPlace();
    if (change.merge_into !== undefined) {
      if (Object.keys(change).length > 1) {
        throw invalid('merge_into is sent alone', [{ path: 'body/merge_into', message: 'must be the only field' }]);
      }
      const into = change.merge_into === id ? undefined : await findPlaceRow(trx, auth.userId, change.merge_into);
      if (!into) {
        throw invalid('No such place to merge into', [
          { path: 'body/merge_into', message: 'must be another of your places' },
        ]);
      }
      await movePlaceVisits(trx, auth.userId, id, into.id, { newId, now: nowMs() });
      await deletePlaceRow(trx, auth.userId, id);
      return toPlace(into, await countVisitsAt(trx, auth.userId, into.id));
    }
    const next: PlaceRow = { ...row };
    if (change.name !== undefined) next.name = change.name === null ? null : checkedName(change.name);
    if (change.lat !== undefined) next.lat = change.lat;
    if (change.lon !== undefined) next.lon = change.lon;
    if (change.radius_m !== undefined) next.radius_m = change.radius_m;
    const moved = next.lat !== row.lat || next.lon !== row.lon || next.radius_m !== row.radius_m;
    if (moved) {
      const label = labelOf(next.lat, next.lon);
      next.city = label.city;
      next.country = label.country;
    }
    const { name, lat, lon, radius_m, city, country } = next;
    await updatePlaceRow(trx, auth.userId, id, { name, lat, lon, radius_m, city, country });
    if (moved) {
      await markPlaceDays(trx, auth.userId, id);
      await markVisitDaysNear(trx, auth.userId, next);
    }
    return toPlace(next, await countVisitsAt(trx, auth.userId, id));
  });
}

/** The place goes; its visits are detected again and find another (or a new) place. */
export async function deletePlace(db: Db, auth: Auth, id: string): Promise<void> {
  requirePrivateReads(auth);
  await db.transaction().execute(async (trx) => {
    const row = await findPlaceRow(trx, auth.userId, id);
    if (!row) throw noSuchPlace();
    await markPlaceDays(trx, auth.userId, id);
    await forgetPlaceCorrections(trx, auth.userId, id);
    await deletePlaceRow(trx, auth.userId, id);
  });
}
