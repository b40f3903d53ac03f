// overland: the Overland GPS tracker (iOS, Android). The app POSTs batches of GeoJSON Features
// `{locations: [...], current?, trip?}` with its access token as `Authorization: Bearer`, and
// removes a batch from its queue only when the answer is `{"result": "ok"}` (Overland's
// README, "Receiver Endpoint"). So the answer is sent only after the batch is committed.
//
// Each location: `geometry: {type: "Point", coordinates: [lon, lat]}`, `properties.timestamp`
// (ISO 8601), `altitude`, `speed` (m/s), `course` (degrees), `horizontal_accuracy` (metres);
// the rest (`motion`, `battery_level`, `wifi`, ...) is ignored. A feature without a Point
// geometry is skipped, not an error. A Point that cannot be read is left out with 200 too (and
// listed in the service's `last_error`): refusing the batch would make the app resend it
// forever and hold back everything recorded after it. A body without a `locations` array is 400.
import { Type } from 'typebox';
import { badRequest } from '../../core/errors.ts';
import { PointProblem, required, type PointInput } from '../../locations/point.ts';
import { isObject } from '../../lib/json.ts';
import type { Connector } from './connector.ts';
import { checkBatchSize, isoTime, NO_CONFIG, optional, parseJson, readPoints, type Ingest } from './tracker.ts';

function location(feature: unknown, path: string): PointInput | undefined {
  if (!isObject(feature) || !isObject(feature.geometry) || feature.geometry.type !== 'Point') return undefined;
  const coordinates = feature.geometry.coordinates;
  if (!Array.isArray(coordinates) || coordinates.length < 2) {
    throw new PointProblem(`${path}/geometry/coordinates`, 'must be [lon, lat]');
  }
  const properties = feature.properties ?? {};
  if (!isObject(properties)) throw new PointProblem(`${path}/properties`, 'must be an object');
  const at = (name: string) => `${path}/properties/${name}`;
  return {
    timeMs: isoTime(properties.timestamp, at('timestamp')),
    lat: required(coordinates[1], 'lat', `${path}/geometry/coordinates/1`),
    lon: required(coordinates[0], 'lon', `${path}/geometry/coordinates/0`),
    alt: optional(properties.altitude, 'alt', at('altitude')),
    accuracy: optional(properties.horizontal_accuracy, 'accuracy', at('horizontal_accuracy')),
    speed: optional(properties.speed, 'speed', at('speed')),
    heading: optional(properties.course, 'heading', at('course')),
    scope: undefined,
  };
}

const ingest: Ingest = {
  app: 'Overland',
  parse({ body }) {
    const json = parseJson(body, 'Overland');
    if (!isObject(json) || !Array.isArray(json.locations)) {
      throw badRequest('Overland sends {"locations": [GeoJSON Feature, ...]}.', [
        { path: 'body/locations', message: 'must be an array of GeoJSON Features' },
      ]);
    }
    const features: unknown[] = json.locations;
    checkBatchSize(features.length, 'body/locations');
    return readPoints(features, (feature, index) => location(feature, `body/locations/${index}`), false);
  },
  reply: () => ({ result: 'ok' }),
  replySchema: Type.Object({ result: Type.Literal('ok') }, { description: 'Overland: `{"result": "ok"}`.' }),
};

export const overland: Connector = {
  description:
    'Tracker: the Overland app posts batches of GeoJSON points to the ingest URL (Bearer token as its access token).',
  capabilities: ['import'],
  configSchema: NO_CONFIG,
  secretFields: [],
  ingest,
};
