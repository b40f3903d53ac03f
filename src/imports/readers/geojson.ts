// GeoJSON (RFC 7946) FeatureCollections: Point features with a time in their properties
// (`time`, `timestamp`, `datetime` or `date`: ISO 8601 or epoch seconds or milliseconds), and
// LineString / MultiLineString / MultiPoint features with one time per coordinate, in
// `properties.coordTimes` (as @tmcw/togeojson writes them from GPX and KML) or
// `properties.coordinateProperties.times`. Coordinates are [lon, lat, alt?]. A coordinate
// without a time is counted as skipped; polygons are not a history and are ignored.
import { isObject } from '../../lib/json.ts';
import { jsonRecords } from './json.ts';
import { parseTime, point, type ImportRecord, type Reader } from './reader.ts';

type Obj = Record<string, unknown>;
const TIME_KEYS = ['time', 'timestamp', 'datetime', 'date'];

function pointTime(properties: Obj): number | null {
  for (const key of TIME_KEYS) if (properties[key] !== undefined) return parseTime(properties[key]);
  return null;
}

function position(
  where: string,
  coordinates: unknown,
  timeMs: number | null,
  properties: Obj,
  out: ImportRecord[],
): void {
  const [lon, lat, alt] = Array.isArray(coordinates) ? (coordinates as unknown[]) : [];
  out.push(
    point(where, timeMs, lat, lon, {
      alt: alt ?? properties.altitude ?? properties.elevation,
      accuracy: properties.accuracy,
      speed: properties.speed,
      heading: properties.heading ?? properties.course,
    }),
  );
}

/** One line of coordinates with its times (a list as long as it, or nothing). */
function line(where: string, coordinates: unknown, times: unknown, out: ImportRecord[]): void {
  const list = Array.isArray(coordinates) ? coordinates : [];
  const timeList = Array.isArray(times) ? times : [];
  list.forEach((coordinate, i) => position(`${where}[${i}]`, coordinate, parseTime(timeList[i]), {}, out));
}

function feature(value: unknown, where: string, out: ImportRecord[]): void {
  if (!isObject(value) || !isObject(value.geometry)) return;
  const properties: Obj = isObject(value.properties) ? value.properties : {};
  const { type, coordinates } = value.geometry;
  const perCoordinate = isObject(properties.coordinateProperties) ? properties.coordinateProperties.times : undefined;
  const times = properties.coordTimes ?? perCoordinate;
  if (type === 'Point') position(where, coordinates, pointTime(properties), properties, out);
  else if (type === 'LineString' || type === 'MultiPoint') line(`${where}.coordinates`, coordinates, times, out);
  else if (type === 'MultiLineString' && Array.isArray(coordinates)) {
    coordinates.forEach((part, i) =>
      line(`${where}.coordinates[${i}]`, part, Array.isArray(times) ? times[i] : undefined, out),
    );
  }
}

export const geojson: Reader = {
  read: (input) =>
    jsonRecords(input, ['$.features.*'], (value, out, i) => feature(value, `${input.name}: features[${i}]`, out)),
};
