// POST /locations: a batch of points, as a JSON array or a GeoJSON FeatureCollection, checked
// point by point. One bad point rejects the batch, naming its index; nothing is half-stored.
import type { ScopeValue } from '../db/schema.ts';
import { badRequest, type FieldError } from '../core/errors.ts';
import { LOCATION_BATCH_MAX } from './locations.schemas.ts';
import type { Fix } from './point.ts';

/** One point as the logic stores it; times in milliseconds. */
export interface PointInput extends Fix {
  scope: ScopeValue | undefined;
}

type Raw = Record<string, unknown>;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const TIME_LIMIT_S = 1e11;

/** Thrown inside the checks; becomes one field error with the point's path. */
class PointError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

function number(raw: Raw, field: string, min: number, max: number, required: boolean): number | null {
  const value = raw[field];
  if (value === undefined || value === null) {
    if (required) throw new PointError(field, 'is required');
    return null;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new PointError(field, 'must be a number');
  if (value < min || value > max) throw new PointError(field, `must be from ${min} to ${max}`);
  return value;
}

function seconds(field: string, value: unknown): number {
  if (typeof value === 'string') {
    const ms = RFC3339.test(value) ? Date.parse(value) : NaN;
    if (!Number.isFinite(ms)) throw new PointError(field, 'must be epoch seconds or an RFC 3339 date-time');
    return ms;
  }
  const s = number({ [field]: value }, field, -TIME_LIMIT_S, TIME_LIMIT_S, true);
  return Math.round((s as number) * 1000);
}

function scope(raw: Raw): ScopeValue | undefined {
  const value = raw.scope;
  if (value === undefined) return undefined;
  if (value !== 'public' && value !== 'private') throw new PointError('scope', 'must be "public" or "private"');
  return value;
}

const POINT_FIELDS = new Set(['time', 'lat', 'lon', 'alt', 'accuracy', 'speed', 'heading', 'scope']);

function fromPlain(raw: unknown): PointInput {
  if (!isObject(raw)) throw new PointError('', 'must be an object');
  for (const key of Object.keys(raw)) if (!POINT_FIELDS.has(key)) throw new PointError(key, 'is not a known field');
  return {
    timeMs: seconds('time', raw.time),
    lat: number(raw, 'lat', -90, 90, true) as number,
    lon: number(raw, 'lon', -180, 180, true) as number,
    alt: number(raw, 'alt', -1e5, 1e6, false),
    accuracy: number(raw, 'accuracy', 0, 1e7, false),
    speed: number(raw, 'speed', 0, 1e5, false),
    heading: number(raw, 'heading', 0, 360, false),
    scope: scope(raw),
  };
}

function fromFeature(raw: unknown): PointInput {
  if (!isObject(raw) || raw.type !== 'Feature') throw new PointError('type', 'must be "Feature"');
  const geometry = raw.geometry;
  if (!isObject(geometry) || geometry.type !== 'Point') throw new PointError('geometry', 'must be a Point');
  const coordinates = geometry.coordinates;
  if (!Array.isArray(coordinates) || coordinates.length < 2 || coordinates.length > 3) {
    throw new PointError('geometry/coordinates', 'must be [lon, lat] or [lon, lat, alt]');
  }
  const [lon, lat, alt] = coordinates as unknown[];
  const properties = raw.properties ?? {};
  if (!isObject(properties)) throw new PointError('properties', 'must be an object');
  const time = properties.time ?? properties.timestamp;
  if (time === undefined) throw new PointError('properties/time', 'is required');
  // Errors name the place in the feature, not the name of the field inside our checks.
  const check = <V>(field: string, fn: () => V): V => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof PointError) throw new PointError(field, error.message);
      throw error;
    }
  };
  return {
    timeMs: check('properties/time', () => seconds('time', time)),
    lat: check('geometry/coordinates/1', () => number({ lat }, 'lat', -90, 90, true)) as number,
    lon: check('geometry/coordinates/0', () => number({ lon }, 'lon', -180, 180, true)) as number,
    alt: check('geometry/coordinates/2', () => number({ alt }, 'alt', -1e5, 1e6, false)),
    accuracy: check('properties/accuracy', () => number(properties, 'accuracy', 0, 1e7, false)),
    speed: check('properties/speed', () => number(properties, 'speed', 0, 1e5, false)),
    heading: check('properties/heading', () => number(properties, 'heading', 0, 360, false)),
    scope: check('properties/scope', () => scope(properties)),
  };
}

/** The points of a batch, or 400 naming the first bad point's index and field. */
export function parseBatch(body: unknown): PointInput[] {
  const geojson = isObject(body);
  const items = geojson ? (body as { features: unknown[] }).features : (body as unknown[]);
  const prefix = geojson ? 'body/features' : 'body';
  if (items.length > LOCATION_BATCH_MAX) {
    throw badRequest(`A batch holds at most ${LOCATION_BATCH_MAX} points; this one has ${items.length}.`, [
      { path: prefix, message: `must have at most ${LOCATION_BATCH_MAX} points` },
    ]);
  }
  return items.map((item, index) => {
    try {
      return geojson ? fromFeature(item) : fromPlain(item);
    } catch (error) {
      if (!(error instanceof PointError)) throw error;
      const path = `${prefix}/${index}${error.field ? `/${error.field}` : ''}`;
      const errors: FieldError[] = [{ path, message: error.message }];
      throw badRequest(`Point ${index} is invalid: ${path} ${error.message}. Nothing was stored.`, errors);
    }
  });
}
