// What the tracker types share (docs/trackers.md): the one small interface a
// protocol parser fills, and the checks every point passes, those of `POST /locations`
// (src/locations/point.ts) with the words trackers need.
import { Type, type TSchema } from 'typebox';
import { badRequest, type FieldError } from '../../core/errors.ts';
import {
  checkBatchSize as checkPointCount,
  optional as optionalInRange,
  PointProblem,
  within,
  type PointField,
  type PointInput,
} from '../../locations/point.ts';

/** One request to an ingest URL, as the route read it. */
export interface IngestRequest {
  /** The body as sent; '' when there is none. */
  body: string;
  /** The media type without parameters, lower case; '' when absent. */
  contentType: string;
  /** Query parameters (the first of each name), the token left out. */
  query: Readonly<Record<string, string>>;
}

export interface IngestBatch {
  points: PointInput[];
  /** Points left out because they cannot be read, for protocols that must answer 200 anyway. */
  skipped: FieldError[];
}

export interface IngestOutcome {
  stored: number;
  duplicates: number;
  skipped: number;
}

export interface Ingest {
  /** The app this speaks to, for messages and docs. */
  app: string;
  /** Reads a request. Throws a 400 AppError for one that can never be read. */
  parse(request: IngestRequest): IngestBatch;
  /** The body the app expects once the points are stored (status 200). */
  reply(outcome: IngestOutcome): unknown;
  /** The schema of that body, for the OpenAPI document. */
  replySchema: TSchema;
}

/** Trackers take no settings: everything they need is in the ingest URL and token. */
export const NO_CONFIG = Type.Object({}, { additionalProperties: false });

/**
 * A value the point may lack. Phones report an unknown accuracy, speed or course as a negative
 * number (CoreLocation's -1, Android's missing bearing): that is stored as unknown (null).
 */
export function optional(
  value: unknown,
  field: Exclude<PointField, 'time' | 'lat' | 'lon'>,
  path: string,
): number | null {
  if (field !== 'alt' && typeof value === 'number' && value < 0) return null;
  return optionalInRange(value, field, path);
}

/** Unix epoch seconds (fractions allowed), as milliseconds. */
export function epochSeconds(value: unknown, path: string): number {
  if (value === undefined || value === null) throw new PointProblem(path, 'is required');
  if (typeof value !== 'number' || !within(value, 'time')) throw new PointProblem(path, 'must be Unix epoch seconds');
  return Math.round(value * 1000);
}

// ISO 8601 date-time with an offset, as phones write it: `2025-01-16T03:54:51.000Z`,
// `2015-10-01T08:00:00-0700` (Overland: no colon in the offset), `...+02:00`.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** An ISO 8601 date-time with a time zone, as milliseconds. */
export function isoTime(value: unknown, path: string): number {
  if (value === undefined || value === null) throw new PointProblem(path, 'is required');
  const match = typeof value === 'string' ? ISO_8601.exec(value) : null;
  if (!match) throw new PointProblem(path, 'must be an ISO 8601 date-time with a time zone');
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match.map((part) => part ?? '');
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(local);
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    Number(oh) < 24 &&
    Number(om) < 60;
  if (!valid) throw new PointProblem(path, 'is not a real date and time');
  const offsetMinutes = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return local - offsetMinutes * 60_000 + Math.round(Number(fraction || 0) * 1000);
}

/** The JSON of a body, or a 400 that says it is not JSON. */
export function parseJson(body: string, app: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw badRequest(`The body is not JSON, as ${app} sends it.`, [{ path: 'body', message: 'is not JSON' }]);
  }
}

/** Refuses a request with more points than a `POST /locations` batch may hold. */
export function checkBatchSize(count: number, path: string): void {
  checkPointCount(count, path, 'request', 'items');
}

/**
 * Reads each item with `read` (undefined: not a point, left out silently). `strict`: the first
 * unreadable point refuses the whole request (400 naming it); otherwise it is left out and listed.
 */
export function readPoints<T>(
  items: readonly T[],
  read: (item: T, index: number) => PointInput | undefined,
  strict: boolean,
): IngestBatch {
  const points: PointInput[] = [];
  const skipped: FieldError[] = [];
  for (const [index, item] of items.entries()) {
    try {
      const point = read(item, index);
      if (point) points.push(point);
    } catch (error) {
      if (!(error instanceof PointProblem)) throw error;
      const problem = { path: error.path, message: error.message };
      if (strict) throw badRequest(`${error.path} ${error.message}. Nothing was stored.`, [problem]);
      skipped.push(problem);
    }
  }
  return { points, skipped };
}
