// Visits and trips as the API shows them, and the person's corrections (docs/api.md "Visits and
// trips"). Every read needs `get_private_scope`: visits are never public. Another person's visit
// is the same 404 as a missing id. The routes bring the detection up to date before calling
// these (src/history/refresh.ts, passed in by src/app.ts).
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import type { Cursors } from '../core/cursors.ts';
import { invalid, notFound } from '../core/errors.ts';
import { requirePrivateReads } from '../items/access.ts';
import { toPageQuery, type Page } from '../items/items.logic.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, secondsToMs } from '../lib/time.ts';
import { toPlaceRef } from '../places/places.logic.ts';
import { findPlaceRow, placeRowsByIds } from '../places/places.repo.ts';
import type { PlaceRef } from '../places/places.schemas.ts';
import {
  daysBetween,
  findVisitRow,
  insertCorrection,
  markVisitDays,
  selectSpanPage,
  type CorrectionRow,
  type TripRow,
  type VisitRow,
} from './visits.repo.ts';
import type { TripJson, VisitCorrection, VisitJson, VisitsParams } from './visits.schemas.ts';

const noSuchVisit = () => notFound('No such visit.');

export function toTrip(row: TripRow): TripJson {
  return {
    id: row.id,
    start_time: msToSeconds(row.start_time),
    end_time: msToSeconds(row.end_time),
    distance_m: Math.round(row.distance_m),
    mode: row.mode as TripJson['mode'],
    from_visit_id: row.from_visit_id,
    to_visit_id: row.to_visit_id,
  };
}

export function toVisit(row: VisitRow, place: PlaceRef): VisitJson {
  return {
    id: row.id,
    place_id: row.place_id,
    place,
    lat: row.lat,
    lon: row.lon,
    start_time: msToSeconds(row.start_time),
    end_time: msToSeconds(row.end_time),
    point_count: row.point_count,
    confidence: row.confidence,
  };
}

function pageOfSpans<R extends { start_time: number; id: string }, T>(
  result: { rows: R[]; more: boolean },
  map: (row: R) => T,
  cursors: Cursors,
): Page<T> {
  const last = result.rows.at(-1);
  const next = result.more && last ? cursors.encode({ time: last.start_time, id: last.id }) : undefined;
  return { items: result.rows.map(map), next };
}

/** The places the visits are at, by id. */
async function placesOf(db: Db, userId: string, visits: readonly VisitRow[]): Promise<Map<string, PlaceRef>> {
  const ids = [...new Set(visits.map((visit) => visit.place_id))];
  return new Map((await placeRowsByIds(db, userId, ids)).map((row) => [row.id, toPlaceRef(row)]));
}

export async function listVisits(db: Db, auth: Auth, params: VisitsParams, cursors: Cursors): Promise<Page<VisitJson>> {
  requirePrivateReads(auth);
  const result = await selectSpanPage(db, 'visits', auth.userId, toPageQuery(params, cursors));
  const places = await placesOf(db, auth.userId, result.rows);
  const missing: PlaceRef = { id: '', name: null, lat: 0, lon: 0, city: null, country: null };
  return pageOfSpans(
    result,
    (row) => toVisit(row, places.get(row.place_id) ?? { ...missing, id: row.place_id }),
    cursors,
  );
}

export async function listTrips(db: Db, auth: Auth, params: VisitsParams, cursors: Cursors): Promise<Page<TripJson>> {
  requirePrivateReads(auth);
  const result = await selectSpanPage(db, 'trips', auth.userId, toPageQuery(params, cursors));
  return pageOfSpans(result, toTrip, cursors);
}

function correctionProblem(path: string, message: string) {
  return invalid('The correction is invalid', [{ path: `body/${path}`, message }]);
}

/**
 * Keeps the correction and marks its days to detect again; returns the stretch it covers, whose
 * visits the route shows once detected.
 */
export async function correctVisit(
  db: Db,
  auth: Auth,
  id: string,
  body: VisitCorrection,
  now: number,
): Promise<{ sinceMs: number; untilMs: number }> {
  requirePrivateReads(auth);
  return db.transaction().execute(async (trx) => {
    const visit = await findVisitRow(trx, auth.userId, id);
    if (!visit) throw noSuchVisit();
    const base = { id: newId(), user_id: auth.userId, place_id: null, created_at: now };
    let row: CorrectionRow;
    if ('place_id' in body) {
      if (!(await findPlaceRow(trx, auth.userId, body.place_id))) {
        throw correctionProblem('place_id', 'must be one of your places');
      }
      row = { ...base, kind: 'place', start_time: visit.start_time, end_time: visit.end_time, place_id: body.place_id };
    } else if ('split_at' in body) {
      const at = secondsToMs(body.split_at);
      if (!(at > visit.start_time && at < visit.end_time)) {
        throw correctionProblem('split_at', 'must be inside the visit, after its start and before its end');
      }
      row = { ...base, kind: 'split', start_time: at, end_time: at };
    } else if ('merge_with' in body) {
      const other = body.merge_with === id ? undefined : await findVisitRow(trx, auth.userId, body.merge_with);
      if (!other) throw correctionProblem('merge_with', 'must be another of your visits');
      const start = Math.min(visit.start_time, other.start_time);
      const end = Math.max(visit.end_time, other.end_time);
      row = { ...base, kind: 'merge', start_time: start, end_time: end };
    } else {
      row = { ...base, kind: 'not_a_stay', start_time: visit.start_time, end_time: visit.end_time };
    }
    await insertCorrection(trx, row);
    // The stretch the answer shows: the visit's (a split's two halves), or the merged one's.
    const sinceMs = Math.min(row.start_time, visit.start_time);
    const untilMs = Math.max(row.end_time, visit.end_time);
    await markVisitDays(trx, auth.userId, daysBetween(sinceMs, untilMs));
    return { sinceMs, untilMs };
  });
}
