// What a location fix measures, as every way in (POST /locations, trackers, imports) hands it on
// after reading: one shape, times in milliseconds, units of docs/api.md "Objects": location.
// And the checks they share: one range per field, the same bounds whichever way a point came.
import type { ScopeValue } from '../db/schema.ts';
import { badRequest } from '../core/errors.ts';
import { TIME_LIMIT_S } from '../lib/time.ts';
import { LOCATION_BATCH_MAX } from './locations.schemas.ts';

/** What a fix measures, as the API object of a point carries it too. */
export interface Measured {
  lat: number;
  lon: number;
  alt: number | null;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
}

export interface Fix extends Measured {
  timeMs: number;
}

/** One point as the logic stores it; times in milliseconds. */
export interface PointInput extends Fix {
  scope: ScopeValue | undefined;
}

/** The values a point's fields may take: `time` in epoch seconds, the rest in docs/api.md's units. */
export const POINT_RANGES = {
  time: [-TIME_LIMIT_S, TIME_LIMIT_S],
  lat: [-90, 90],
  lon: [-180, 180],
  alt: [-1e5, 1e6],
  accuracy: [0, 1e7],
  speed: [0, 1e5],
  heading: [0, 360],
} as const;
export type PointField = keyof typeof POINT_RANGES;

/** Whether a number is in a field's range (never NaN or an infinity). */
export function within(value: number, field: PointField): boolean {
  const [min, max] = POINT_RANGES[field];
  return value >= min && value <= max;
}

/** A point that cannot be stored: where (a path, as each way in names its fields) and why. */
export class PointProblem extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

/** A number in the field's range, or a PointProblem at `path` saying which it is not. */
export function inRange(value: unknown, field: PointField, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new PointProblem(path, 'must be a number');
  if (!within(value, field)) {
    const [min, max] = POINT_RANGES[field];
    throw new PointProblem(path, `must be from ${min} to ${max}`);
  }
  return value;
}

/** A value the point cannot do without (undefined and null are missing). */
export function required(value: unknown, field: PointField, path: string): number {
  if (value === undefined || value === null) throw new PointProblem(path, 'is required');
  return inRange(value, field, path);
}

/** A value the point may lack: null when it does. */
export function optional(value: unknown, field: PointField, path: string): number | null {
  if (value === undefined || value === null) return null;
  return inRange(value, field, path);
}

/**
 * Refuses more points at once than a `POST /locations` batch may hold (LOCATION_BATCH_MAX);
 * `whole` and `unit` are the words of the way in ("batch" of "points", "request" of "items").
 */
export function checkBatchSize(count: number, path: string, whole: string, unit: string): void {
  if (count <= LOCATION_BATCH_MAX) return;
  throw badRequest(`A ${whole} holds at most ${LOCATION_BATCH_MAX} points; this one has ${count}.`, [
    { path, message: `must have at most ${LOCATION_BATCH_MAX} ${unit}` },
  ]);
}
