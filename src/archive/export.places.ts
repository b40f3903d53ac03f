// What the export keeps of visits (docs/data-ownership.md): the person's places, named or not,
// and their corrections, the part of it that is theirs. Visits and trips are not written: they
// are detected from the points, and a restore detects them again with these.
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { msToSeconds } from '../lib/time.ts';
import { listPlaces } from '../places/places.logic.ts';
import { allCorrectionRows } from '../visits/visits.repo.ts';
import type { PlaceRecord, VisitCorrectionRecord } from './format.ts';

/** The person's places as the API shows them, without how many visits each has (found again). */
export async function placeRecords(db: Db, owner: Auth): Promise<PlaceRecord[]> {
  return (await listPlaces(db, owner)).map(({ id, name, lat, lon, radius_m, city, country, created_at }) => ({
    id,
    name,
    lat,
    lon,
    radius_m,
    city,
    country,
    created_at,
  }));
}

/** The person's corrections, oldest first (the order they are applied in). */
export async function correctionRecords(db: Db, userId: string): Promise<VisitCorrectionRecord[]> {
  return (await allCorrectionRows(db, userId)).map((row) => ({
    id: row.id,
    kind: row.kind,
    start_time: msToSeconds(row.start_time),
    end_time: msToSeconds(row.end_time),
    place_id: row.place_id,
    created_at: msToSeconds(row.created_at),
  }));
}
