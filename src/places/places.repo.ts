// SQL for places (migration 0033). A place's visits are counted here, so GET /places is one query.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PlacesTable } from '../db/schema.visits.ts';

export type PlaceRow = PlacesTable;

export function placeRows(db: Db, userId: string): Promise<(PlaceRow & { visits: number })[]> {
  return db
    .selectFrom('places as p')
    .selectAll('p')
    .select(sql<number>`(select count(*) from visits v where v.user_id = p.user_id and v.place_id = p.id)`.as('visits'))
    .where('p.user_id', '=', userId)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .execute();
}

/** The person's places, without counting their visits (for detection, which needs only where they are). */
export function placeRowsOf(db: Db, userId: string): Promise<PlaceRow[]> {
  return db.selectFrom('places').selectAll().where('user_id', '=', userId).execute();
}

export function placeRowsByIds(db: Db, userId: string, ids: readonly string[]): Promise<PlaceRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('places')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', 'in', [...ids])
    .execute();
}

export function findPlaceRow(db: Db, userId: string, id: string): Promise<PlaceRow | undefined> {
  return db.selectFrom('places').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function countPlaceRows(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('places')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countVisitsAt(db: Db, userId: string, placeId: string): Promise<number> {
  const row = await db
    .selectFrom('visits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('place_id', '=', placeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPlaceRows(db: Db, rows: readonly PlaceRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('places')
      .values(rows.slice(i, i + 500))
      .execute();
}

export async function updatePlaceRow(
  db: Db,
  userId: string,
  id: string,
  change: Partial<Pick<PlaceRow, 'name' | 'lat' | 'lon' | 'radius_m' | 'city' | 'country'>>,
): Promise<void> {
  await db.updateTable('places').set(change).where('user_id', '=', userId).where('id', '=', id).execute();
}

export async function deletePlaceRow(db: Db, userId: string, id: string): Promise<void> {
  await db.deleteFrom('places').where('user_id', '=', userId).where('id', '=', id).execute();
}

/**
 * The visits and corrections at `from` become `into`'s, and each visit's move is kept as a
 * correction (docs/history.md "Corrections"), so a later detection puts them there again.
 */
export async function movePlaceVisits(
  db: Db,
  userId: string,
  from: string,
  into: string,
  ids: { newId(): string; now: number },
): Promise<void> {
  const moved = await db
    .selectFrom('visits')
    .select(['start_time', 'end_time'])
    .where('user_id', '=', userId)
    .where('place_id', '=', from)
    .execute();
  const corrections = moved.map((visit) => ({
    id: ids.newId(),
    user_id: userId,
    kind: 'place' as const,
    start_time: Number(visit.start_time),
    end_time: Number(visit.end_time),
    place_id: into,
    created_at: ids.now,
  }));
  for (let i = 0; i < corrections.length; i += 500) {
    await db
      .insertInto('visit_corrections')
      .values(corrections.slice(i, i + 500))
      .execute();
  }
  await db
    .updateTable('visits')
    .set({ place_id: into })
    .where('user_id', '=', userId)
    .where('place_id', '=', from)
    .execute();
  await db
    .updateTable('visit_corrections')
    .set({ place_id: into })
    .where('user_id', '=', userId)
    .where('place_id', '=', from)
    .execute();
}

/** The UTC days of the visits at a place: detected again after the place moved or went. */
export async function markPlaceDays(db: Db, userId: string, placeId: string): Promise<void> {
  const day = sql<number>`cast(floor(start_time / 86400000.0) as integer)`;
  await sql`insert into visit_marks (user_id, day)
    select distinct ${userId}, ${day} from visits where user_id = ${userId} and place_id = ${placeId}
    on conflict do nothing`.execute(db);
}

/** Corrections that named a place that is gone say nothing any more. */
export async function forgetPlaceCorrections(db: Db, userId: string, placeId: string): Promise<void> {
  await db.deleteFrom('visit_corrections').where('user_id', '=', userId).where('place_id', '=', placeId).execute();
}

/** The UTC days of the visits within reach of a place (a box around it, generous at the poles). */
export async function markVisitDaysNear(db: Db, userId: string, place: PlaceRow): Promise<void> {
  const latStep = place.radius_m / 111_320;
  const lonStep = Math.min(360, latStep / Math.max(0.01, Math.cos((Math.abs(place.lat) * Math.PI) / 180)));
  const day = sql<number>`cast(floor(start_time / 86400000.0) as integer)`;
  await sql`insert into visit_marks (user_id, day)
    select distinct ${userId}, ${day} from visits where user_id = ${userId}
      and lat between ${place.lat - latStep} and ${place.lat + latStep}
      and lon between ${place.lon - lonStep} and ${place.lon + lonStep}
    on conflict do nothing`.execute(db);
}

/**
 * Of `candidates` (the places of visits just replaced), the unnamed ones no visit and no
 * correction is at any more: the detector made them, and they went.
 */
export async function dropUnusedPlaces(db: Db, userId: string, candidates: readonly string[]): Promise<void> {
  if (candidates.length === 0) return;
  await sql`delete from places where user_id = ${userId} and name is null
    and id in (${sql.join([...candidates])})
    and not exists (select 1 from visits v where v.user_id = places.user_id and v.place_id = places.id)
    and not exists (select 1 from visit_corrections c where c.user_id = places.user_id and c.place_id = places.id)`.execute(
    db,
  );
}
