// GET /locations/tracks/<date> (docs/history.md "Day tracks"): the owner's points of one day
// of their time zone as a GeoJSON LineString, simplified for a zoom.
import simplify from 'simplify-js';
import type { Db } from '../db/database.ts';
import { badRequest } from '../core/errors.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { mercatorX, mercatorY } from './geo.ts';
import type { TimedPoint } from '../lib/distance.ts';
import { nowMs, zonedToUtc } from '../lib/time.ts';
import { refreshHistory } from './refresh.ts';
import { tripsWithin } from './trip-distances.repo.ts';
import { eachBatch, POSITION } from '../locations/points.repo.ts';

export interface DayTrack {
  type: 'Feature';
  geometry: { type: 'LineString'; coordinates: [number, number][] } | null;
  properties: {
    date: string;
    timezone: string;
    start: number;
    end: number;
    points: number;
    distance_m: number;
    duration_s: number;
    moving_s: number;
  };
}

/** The day's first and last instant (ms, end exclusive) in the zone; 400 for a date that is not one. */
function dayBounds(date: string, timezone: string): { start: number; end: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const wall = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  if (!match || Number.isNaN(wall) || new Date(wall).toISOString().slice(0, 10) !== date) {
    throw badRequest('The date must be a day as YYYY-MM-DD.', [{ path: 'params/date', message: 'is not a date' }]);
  }
  return { start: zonedToUtc(wall, timezone), end: zonedToUtc(wall + 86_400_000, timezone) };
}

/**
 * Distance and time moving are the trips' within the day (docs/history.md "Day tracks"), a trip
 * that crosses midnight counting in proportion to its time on each side; duration is from the
 * first point to the last. The line is simplified (Douglas-Peucker, high quality) to a tolerance of half a pixel of a
 * 256-pixel tile at `zoom`, in Web Mercator, so what is dropped would not have been seen.
 */
export async function dayTrack(db: Db, userId: string, date: string, zoom: number | undefined): Promise<DayTrack> {
  const { timezone } = await getSettings(db, userId);
  const { start, end } = dayBounds(date, timezone);
  await refreshHistory(db, userId, nowMs());
  const points: TimedPoint[] = [];
  for await (const rows of eachBatch(db, { userId, sinceMs: start, untilMs: end }, POSITION)) {
    for (const row of rows) points.push({ time: Number(row.time), lat: row.lat, lon: row.lon });
  }
  let distance = 0;
  let moving = 0;
  for (const trip of await tripsWithin(db, userId, start, end)) {
    const inside = Math.min(end, trip.end) - Math.max(start, trip.start);
    distance += trip.end > trip.start ? (trip.distance * inside) / (trip.end - trip.start) : trip.distance;
    moving += inside / 1000;
  }
  const properties = {
    date,
    timezone,
    start: start / 1000,
    end: end / 1000,
    points: points.length,
    distance_m: Math.round(distance * 10) / 10,
    duration_s: points.length > 0 ? (points.at(-1)!.time - points[0]!.time) / 1000 : 0,
    moving_s: Math.round(moving * 1000) / 1000,
  };
  if (points.length < 2) return { type: 'Feature', geometry: null, properties };
  const scale = zoom === undefined ? 0 : 256 * 2 ** zoom;
  const projected = points.map((point, index) => ({
    x: mercatorX(point.lon) * scale,
    y: mercatorY(point.lat) * scale,
    index,
  }));
  const kept = zoom === undefined ? projected : (simplify(projected, 0.5, true) as typeof projected);
  const coordinates = kept.map(({ index }) => [points[index]!.lon, points[index]!.lat] as [number, number]);
  return { type: 'Feature', geometry: { type: 'LineString', coordinates }, properties };
}
