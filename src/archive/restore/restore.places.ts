// places.json and visit-corrections.json restored (docs/imports.md "Restoring an export"): the
// person's places (named or not, with their reach) and what they said of their visits. Visits
// and trips are not in the archive: the detection that runs once the restore is done finds them
// again in the points, with these places and corrections, so they come out as they were. A
// place is labelled again from its position, as every place here is; a correction follows its
// place to the id the place got here, and one naming a place this restore did not bring back is
// refused, with the reason.
import type { Db } from '../../db/database.ts';
import { secondsToMs } from '../../lib/time.ts';
import { placeRow } from '../../places/places.logic.ts';
import { countPlaceRows, insertPlaceRows, markVisitDaysNear } from '../../places/places.repo.ts';
import { PLACES_PER_USER_MAX } from '../../places/places.schemas.ts';
import { insertCorrection, markVisitDaysTouching } from '../../visits/visits.repo.ts';
import { ENTRIES, PlaceRecord, VisitCorrectionRecord } from '../format.ts';
import { checker, restoreArrayFile, type Phase } from './restore.phase.ts';

/** Restores the places; `placeIds` learns the id each archive id has here. */
export async function restorePlaces(run: Phase, placeIds: Map<string, string>): Promise<void> {
  let count = 0;
  await restoreArrayFile<PlaceRecord>(run, {
    name: ENTRIES.places,
    kind: 'places',
    table: 'places',
    check: checker(PlaceRecord),
    taken: 'its id is taken',
    begin: async (trx) => {
      count = await countPlaceRows(trx, run.userId);
    },
    refuse: (place) => (place.name !== null && place.name.trim() === '' ? '/name must not be blank' : undefined),
    limit: () => (count >= PLACES_PER_USER_MAX ? `a person keeps at most ${PLACES_PER_USER_MAX} places` : undefined),
    known: (place, id) => placeIds.set(place.id, id),
    store: async (trx, place, id) => {
      const at = { lat: place.lat, lon: place.lon, radiusM: place.radius_m, name: place.name?.trim() ?? null };
      const row = { ...placeRow(run.userId, at, secondsToMs(place.created_at)), id };
      await insertPlaceRows(trx, [row]);
      // Visits already detected here (the points were restored before) find the place at once.
      await markVisitDaysNear(trx, run.userId, row);
      count += 1;
    },
  });
}

/** Why a correction the schema takes cannot be stored, or undefined. */
function refusal(correction: VisitCorrectionRecord, placeIds: ReadonlyMap<string, string>): string | undefined {
  const { kind, start_time: start, end_time: end, place_id: placeId } = correction;
  if (end < start) return '/end_time must not be before start_time';
  if (kind === 'split' && end !== start) return '/end_time of a split is its start_time';
  if (kind === 'place') {
    if (placeId === null) return '/place_id a place correction names its place';
    if (!placeIds.has(placeId)) return `its place ${placeId} is not among the places restored`;
  }
  return undefined;
}

/** Restores the corrections, after the places they name. */
export async function restoreCorrections(run: Phase, placeIds: ReadonlyMap<string, string>): Promise<void> {
  await restoreArrayFile<VisitCorrectionRecord>(run, {
    name: ENTRIES.visitCorrections,
    kind: 'visit_corrections',
    table: 'visit_corrections',
    check: checker(VisitCorrectionRecord),
    taken: 'its id is taken',
    refuse: (correction) => refusal(correction, placeIds),
    store: async (trx: Db, correction, id) => {
      const startMs = secondsToMs(correction.start_time);
      const endMs = secondsToMs(correction.end_time);
      const placeId = correction.kind === 'place' ? placeIds.get(correction.place_id ?? '') : undefined;
      await insertCorrection(trx, {
        id,
        user_id: run.userId,
        kind: correction.kind,
        start_time: startMs,
        end_time: endMs,
        place_id: placeId ?? null,
        created_at: secondsToMs(correction.created_at),
      });
      // Visits already detected then are detected again, with the correction.
      await markVisitDaysTouching(trx, run.userId, startMs, endMs);
    },
  });
}
