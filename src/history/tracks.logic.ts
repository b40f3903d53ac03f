// GET /locations/tracks/<date> (docs/history.md "Day tracks"): the owner's points of one day
// of their time zone as a GeoJSON LineString, simplified for a zoom.
import simplify from 'simplify-js';
import type { Db } from '../db/database.ts';
import { badRequest } from '../core/errors.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { zonedToUtc } from '../lib/time.ts';
import { mercatorX, mercatorY, movingS, segmentM, type TimedPoint } from './geo.ts';
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
 * Distance, duration and time moving come from every point (rules in src/history/geo.ts); the
 * line is simplified (Douglas-Peucker, high quality) to a tolerance of half a pixel of a
 * 256-pixel tile at `zoom`, in Web Mercator, so what is dropped would not have been seen.
 */
export async function dayTrack(db: Db, userId: string, date: string, zoom: number | undefined): Promise<DayTrack> {
  const { timezone } = await getSettings(db, userId);
  const { start, end } = dayBounds(date, timezone);
  const points: TimedPoint[] = [];
  for await (const rows of eachBatch(db, { userId, sinceMs: start, untilMs: end }, POSITION)) {
    for (const row of rows) points.push({ time: Number(row.time), lat: row.lat, lon: row.lon });
  }
  let distance = 0;
  let moving = 0;
  for (let i = 1; i < points.length; i += 1) {
    const metres = segmentM(points[i - 1]!, points[i]!);
    distance += metres;
    moving += movingS(points[i - 1]!, points[i]!, metres);
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
