// Detecting visits and trips again where the points changed (docs/history.md "Stored, and
// refreshed where the points changed"). The statistics' refresh marks the UTC days whose points
// changed (`visit_marks`); for each run of marked days this detects again the window the
// detector's own visits around it call for (`redetectionWindow`), stitches the result in
// between the visits that stay (`stitch`), applies the person's corrections, finds each
// visit's place (or makes one), and replaces what was stored for that stretch, all in one
// transaction. Stitched, the result is the one detecting everything again would give.
import type { Db } from '../db/database.ts';
import { distanceM } from '../lib/distance.ts';
import { eachBatch } from '../locations/points.repo.ts';
import { placeMediaBetween } from '../media/media.placement.ts';
import { dropUnusedPlaces, insertPlaceRows, placeRowsOf, type PlaceRow } from '../places/places.repo.ts';
import { placeRow } from '../places/places.logic.ts';
import { applyCorrections, type Correction, type DayTrip, type DayVisit, type Timeline } from './corrections.ts';
import { createDetector, GAP_MS, redetectionWindow, stitch, type Detection, type Redetection } from './detect.ts';
import {
  clearVisitMarks,
  correctionsBetween,
  relinkTrips,
  replaceDetected,
  replaceSpans,
  spansAround,
  storedExtent,
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

/** The detector over the points of [sinceMs, untilMs) (either may be open), streamed in batches. */
async function detectBetween(
  db: Db,
  userId: string,
  sinceMs: number | undefined,
  untilMs: number | undefined,
): Promise<Detection> {
  const detector = createDetector();
  const found: Detection = { visits: [], trips: [] };
  const keep = (detection: Detection | null) => {
    if (!detection) return;
    const shift = found.visits.length;
    found.visits.push(...detection.visits);
    for (const trip of detection.trips) {
      const index = (i: number | null) => (i == null ? null : i + shift);
      found.trips.push({ ...trip, fromIndex: index(trip.fromIndex), toIndex: index(trip.toIndex) });
    }
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
    visits: found.visits.map((visit) => ({ ...visit, start: Math.round(visit.start), end: Math.round(visit.end) })),
    trips: found.trips.map((trip) => ({ ...trip, start: Math.round(trip.start), end: Math.round(trip.end) })),
  };
}

/**
 * The window to detect again for the marked days [fromMs, toMs). `nextMs` is where the next run
 * of marked days starts, detected right after this one: the window stops there, and that run,
 * reading from the visits this one stores, finds whatever this one cut.
 */
async function windowFor(db: Db, userId: string, fromMs: number, toMs: number, nextMs: number): Promise<Redetection> {
  const { before, after } = await spansAround(db, userId, fromMs, toMs);
  const window = redetectionWindow(before, after);
  return window.readTo < nextMs ? window : { ...window, readTo: nextMs, last: null };
}

/**
 * The stretch a window's result replaces: from the start of the visit it keeps first to the end
 * of the one it keeps last; where it keeps none, everything stored that way, and what it found.
 */
async function replacedRange(
  db: Db,
  userId: string,
  window: Redetection,
  found: Detection,
): Promise<{ sinceMs: number; untilMs: number }> {
  const extent =
    window.first && (window.last || Number.isFinite(window.readTo)) ? undefined : await storedExtent(db, userId);
  const starts = [...found.visits, ...found.trips].map((span) => span.start);
  const ends = [...found.visits, ...found.trips].map((span) => span.end);
  const sinceMs = window.first ? window.first.start : Math.min(extent?.first ?? Infinity, ...starts);
  const untilMs = window.last
    ? window.last.end
    : Number.isFinite(window.readTo)
      ? window.readTo
      : Math.max(extent?.last ?? -Infinity, ...ends) + 1;
  return { sinceMs, untilMs };
}

/** The visits and trips to store for a window: the run stitched between the visits that stay. */
function stitched(window: Redetection, run: Detection): Timeline {
  const part = stitch(window, run);
  const visits = [...(part.first ? [part.first] : []), ...part.visits, ...(part.last ? [part.last] : [])];
  return {
    visits: visits.map(({ start, end, lat, lon, pointCount, confidence }) => ({
      start,
      end,
      lat,
      lon,
      pointCount,
      confidence,
    })),
    trips: part.trips.map(({ start, end, distanceM, mode }) => ({ start, end, distanceM, mode })),
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
  const runs = runsOf(await visitMarks(db, userId));
  for (const [i, run] of runs.entries()) {
    const stretch = await db.transaction().execute(async (trx) => {
      await clearVisitMarks(trx, userId, run.first, run.last);
      const next = runs[i + 1];
      const window = await windowFor(
        trx,
        userId,
        run.first * DAY_MS,
        (run.last + 1) * DAY_MS,
        next ? next.first * DAY_MS : Infinity,
      );
      const found = await detectBetween(
        trx,
        userId,
        Number.isFinite(window.readFrom) ? window.readFrom : undefined,
        // readTo is inclusive, but where the next run starts it belongs to that run.
        !Number.isFinite(window.readTo) ? undefined : window.last ? window.readTo + 1 : window.readTo,
      );
      const raw = stitched(window, found);
      const range = await replacedRange(trx, userId, window, found);
      if (!(range.sinceMs < range.untilMs)) return null;
      await replaceSpans(trx, userId, range, raw.visits);
      const corrections = (await correctionsBetween(trx, userId, range)).map(toCorrection);
      const places = await placeRowsOf(trx, userId);
      const rows = rowsOf(userId, applyCorrections(raw, corrections), places, now);
      await insertPlaceRows(trx, rows.made);
      const left = await replaceDetected(trx, userId, range, rows.visits, rows.trips);
      await relinkTrips(trx, userId, range.sinceMs - GAP_MS, range.untilMs + GAP_MS);
      await dropUnusedPlaces(trx, userId, left);
      await placeMediaBetween(trx, userId, range.sinceMs, range.untilMs);
      return range;
    });
    if (stretch) redone.push(stretch);
    await afterRun?.();
  }
  return redone;
}
