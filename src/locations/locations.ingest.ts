// POST /locations: a batch of points, as a JSON array or a GeoJSON FeatureCollection, checked
// point by point. One bad point rejects the batch, naming its index; nothing is half-stored.
import type { ScopeValue } from '../db/schema.ts';
import { badRequest, type FieldError } from '../core/errors.ts';
import { isObject } from '../lib/json.ts';
import { checkBatchSize, optional, PointProblem, required, type PointInput } from './point.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

// Paths are the field's place in the point; parseBatch puts the batch's path and index before.

function seconds(value: unknown, path: string): number {
  if (typeof value === 'string') {
    const ms = RFC3339.test(value) ? Date.parse(value) : NaN;
    if (!Number.isFinite(ms)) throw new PointProblem(path, 'must be epoch seconds or an RFC 3339 date-time');
    return ms;
  }
  return Math.round(required(value, 'time', path) * 1000);
}

function scope(value: unknown, path: string): ScopeValue | undefined {
  if (value === undefined) return undefined;
  if (value !== 'public' && value !== 'private') throw new PointProblem(path, 'must be "public" or "private"');
  return value;
}

const POINT_FIELDS = new Set(['time', 'lat', 'lon', 'alt', 'accuracy', 'speed', 'heading', 'scope']);

function fromPlain(raw: unknown): PointInput {
  if (!isObject(raw)) throw new PointProblem('', 'must be an object');
  for (const key of Object.keys(raw)) if (!POINT_FIELDS.has(key)) throw new PointProblem(key, 'is not a known field');
  return {
    timeMs: seconds(raw.time, 'time'),
    lat: required(raw.lat, 'lat', 'lat'),
    lon: required(raw.lon, 'lon', 'lon'),
    alt: optional(raw.alt, 'alt', 'alt'),
    accuracy: optional(raw.accuracy, 'accuracy', 'accuracy'),
    speed: optional(raw.speed, 'speed', 'speed'),
    heading: optional(raw.heading, 'heading', 'heading'),
    scope: scope(raw.scope, 'scope'),
  };
}

// Errors name the place in the feature, not the name of the field.
function fromFeature(raw: unknown): PointInput {
  if (!isObject(raw) || raw.type !== 'Feature') throw new PointProblem('type', 'must be "Feature"');
  const geometry = raw.geometry;
  if (!isObject(geometry) || geometry.type !== 'Point') throw new PointProblem('geometry', 'must be a Point');
  const coordinates = geometry.coordinates;
  if (!Array.isArray(coordinates) || coordinates.length < 2 || coordinates.length > 3) {
    throw new PointProblem('geometry/coordinates', 'must be [lon, lat] or [lon, lat, alt]');
  }
  const [lon, lat, alt] = coordinates as unknown[];
  const properties = raw.properties ?? {};
  if (!isObject(properties)) throw new PointProblem('properties', 'must be an object');
  const time = properties.time ?? properties.timestamp;
  if (time === undefined) throw new PointProblem('properties/time', 'is required');
  return {
    timeMs: seconds(time, 'properties/time'),
    lat: required(lat, 'lat', 'geometry/coordinates/1'),
    lon: required(lon, 'lon', 'geometry/coordinates/0'),
    alt: optional(alt, 'alt', 'geometry/coordinates/2'),
    accuracy: optional(properties.accuracy, 'accuracy', 'properties/accuracy'),
    speed: optional(properties.speed, 'speed', 'properties/speed'),
    heading: optional(properties.heading, 'heading', 'properties/heading'),
    scope: scope(properties.scope, 'properties/scope'),
  };
}

/** The points of a batch, or 400 naming the first bad point's index and field. */
export function parseBatch(body: unknown): PointInput[] {
  const geojson = isObject(body);
  const items = geojson ? (body as { features: unknown[] }).features : (body as unknown[]);
  const prefix = geojson ? 'body/features' : 'body';
  checkBatchSize(items.length, prefix, 'batch', 'points');
  return items.map((item, index) => {
    try {
      return geojson ? fromFeature(item) : fromPlain(item);
    } catch (error) {
      if (!(error instanceof PointProblem)) throw error;
      const path = `${prefix}/${index}${error.path ? `/${error.path}` : ''}`;
      const errors: FieldError[] = [{ path, message: error.message }];
      throw badRequest(`Point ${index} is invalid: ${path} ${error.message}. Nothing was stored.`, errors);
    }
  });
}
