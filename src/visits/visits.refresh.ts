// Detecting visits and trips again where the points changed (docs/history.md "Visits and
// trips"). The statistics' refresh marks the UTC days whose points changed (`visit_marks`);
// this reads each run of marked days, widened to the stored visit or trip in progress at either
// edge, runs the detector over its points, applies the person's corrections, finds each visit's
// place (or makes one), and replaces what was stored for that stretch, in one transaction.
import type { Db } from '../db/database.ts';
import { distanceM } from '../lib/distance.ts';
import { eachBatch } from '../locations/points.repo.ts';
import { placeMediaBetween } from '../media/media.placement.ts';
import { dropUnusedPlaces, insertPlaceRows, placeRowsOf, type PlaceRow } from '../places/places.repo.ts';
import { placeRow } from '../places/places.logic.ts';
import { applyCorrections, type Correction, type DayTrip, type DayVisit, type Timeline } from './corrections.ts';
import { createDetector, GAP_MS, type Detection } from './detect.ts';
import {
  clearVisitMarks,
  correctionsBetween,
  relinkTrips,
  replaceDetected,
  storedEndAround,
  storedStartAround,
  tripId,
  visitId,
  visitMarks,
  type CorrectionRow,
  type TripRow,
  type VisitRow,
} from './visits.repo.ts';

const DAY_MS = 86_400_000;
/** Marked days this close are detected in one pass; at most this many days per transaction. */
const RUN_GAP_DAYS = 1;
const RUN_MAX_DAYS = 31;

/** A stretch detected again: where trips may have changed, for the statistics to spread again. */
export interface Redone {
  sinceMs: number;
  untilMs: number;
}

function runsOf(days: readonly number[]): { first: number; last: number }[] {
  const runs: { first: number; last: number }[] = [];
  for (const day of days) {
    const last = runs.at(-1);
    if (last && day - last.last <= RUN_GAP_DAYS + 1 && day - last.first < RUN_MAX_DAYS) last.last = day;
    else runs.push({ first: day, last: day });
  }
  return runs;
}

function toCorrection(row: CorrectionRow): Correction {
  const range = { start: row.start_time, end: row.end_time };
  switch (row.kind) {
    case 'place':
      return { kind: 'place', ...range, placeId: row.place_id ?? '' };
    case 'split':
      return { kind: 'split', at: row.start_time };
    default:
      return { kind: row.kind, ...range };
  }
}

/** The detector over the points of [sinceMs, untilMs), streamed in batches. */
async function detectBetween(db: Db, userId: string, sinceMs: number, untilMs: number): Promise<Timeline> {
  const detector = createDetector();
  const found: Detection = { visits: [], trips: [] };
  const keep = (detection: Detection | null) => {
    if (!detection) return;
    found.visits.push(...detection.visits);
    found.trips.push(...detection.trips);
  };
  const columns = ['lat', 'lon', 'accuracy', 'speed'] as const;
  let lastTime = -Infinity;
  for await (const rows of eachBatch(db, { userId, sinceMs, untilMs }, columns)) {
    for (const row of rows) {
      const time = Number(row.time);
      if (time < lastTime) continue;
      lastTime = time;
      keep(detector.push({ time, lat: row.lat, lon: row.lon, accuracy: row.accuracy, speed: row.speed }));
    }
  }
  keep(detector.flush());
  // Whole milliseconds, as every time is stored: the detector places a departure between two
  // points. The same instant rounds the same way, so a trip still starts where its visit ends.
  return {
    visits: found.visits.map(({ start, end, lat, lon, pointCount, confidence }) => ({
      start: Math.round(start),
      end: Math.round(end),
      lat,
      lon,
      pointCount,
      confidence,
    })),
    trips: found.trips.map(({ start, end, distanceM, mode }) => ({
      start: Math.round(start),
      end: Math.round(end),
      distanceM,
      mode,
    })),
  };
}

/**
 * The place a visit is at: among the places whose circle holds it, a named one before an
 * unnamed one, then the nearest (relative to its radius); else a new one around it.
 */
function placeFor(visit: DayVisit, places: PlaceRow[], made: PlaceRow[], userId: string, now: number): string {
  if (visit.placeId && places.some((place) => place.id === visit.placeId)) return visit.placeId;
  let best: { id: string; named: boolean; ratio: number } | undefined;
  for (const place of places) {
    const ratio = distanceM(visit, place) / place.radius_m;
    const named = place.name !== null;
    const better = !best || (named && !best.named) || (named === best.named && ratio < best.ratio);
    if (ratio <= 1 && better) best = { id: place.id, named, ratio };
  }
  if (best) return best.id;
  const place = placeRow(userId, { lat: visit.lat, lon: visit.lon }, now);
  places.push(place);
  made.push(place);
  return place.id;
}

function rowsOf(
  userId: string,
  timeline: Timeline,
  places: PlaceRow[],
  now: number,
): { visits: VisitRow[]; trips: TripRow[]; made: PlaceRow[] } {
  const made: PlaceRow[] = [];
  const visits = timeline.visits.map((visit) => ({
    user_id: userId,
    id: visitId(visit.start),
    place_id: placeFor(visit, places, made, userId, now),
    start_time: visit.start,
    end_time: visit.end,
    lat: visit.lat,
    lon: visit.lon,
    point_count: visit.pointCount,
    confidence: visit.confidence,
  }));
  const trips = timeline.trips.map((trip: DayTrip) => ({
    user_id: userId,
    id: tripId(trip.start),
    start_time: trip.start,
    end_time: trip.end,
    distance_m: trip.distanceM,
    mode: trip.mode,
    from_visit_id: null,
    to_visit_id: null,
  }));
  return { visits, trips, made };
}

/**
 * Detects the person's marked days again; returns the stretches redone. `afterRun` is called
 * between transactions (the import job renews its lease there).
 */
export async function refreshVisits(
  db: Db,
  userId: string,
  now: number,
  afterRun?: () => Promise<unknown>,
): Promise<Redone[]> {
  const redone: Redone[] = [];
  for (const run of runsOf(await visitMarks(db, userId))) {
    const stretch = await db.transaction().execute(async (trx) => {
      await clearVisitMarks(trx, userId, run.first, run.last);
      const windowStart = run.first * DAY_MS;
      const windowEnd = (run.last + 1) * DAY_MS;
      const sinceMs = Math.min(windowStart, (await storedStartAround(trx, userId, windowStart, GAP_MS)) ?? windowStart);
      const untilMs = Math.max(windowEnd, (await storedEndAround(trx, userId, windowEnd)) ?? windowEnd);
      const detected = await detectBetween(trx, userId, sinceMs, untilMs);
      const corrections = (await correctionsBetween(trx, userId, { sinceMs, untilMs })).map(toCorrection);
      const places = await placeRowsOf(trx, userId);
      const rows = rowsOf(userId, applyCorrections(detected, corrections), places, now);
      await insertPlaceRows(trx, rows.made);
      const left = await replaceDetected(trx, userId, { sinceMs, untilMs }, rows.visits, rows.trips);
      await relinkTrips(trx, userId, sinceMs - GAP_MS, untilMs + GAP_MS);
      await dropUnusedPlaces(trx, userId, left);
      await placeMediaBetween(trx, userId, sinceMs, untilMs);
      const firstTrip = rows.trips[0]?.start_time ?? sinceMs;
      const lastTrip = rows.trips.reduce((end, trip) => Math.max(end, trip.end_time), untilMs);
      return { sinceMs: Math.min(sinceMs, firstTrip), untilMs: lastTrip };
    });
    redone.push(stretch);
    await afterRun?.();
  }
  return redone;
}
