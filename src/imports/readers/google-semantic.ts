// Google Takeout Semantic Location History, one file a month (`2023/2023_JANUARY.json`):
// `{"timelineObjects": [{placeVisit} | {activitySegment}]}`. Coordinates are E7 integers
// (`latitudeE7`, or `latE7`/`lngE7` in paths); times are ISO 8601 (`startTimestamp`,
// `timestamp`) or, in older files, epoch milliseconds as strings (`startTimestampMs`, `timestampMs`).
//
// What becomes points: a place visit is a point at its place at its start and one at its end;
// an activity segment gives its start and end locations at its start and end times, the
// points of `simplifiedRawPath` at their own times, and the `waypointPath` waypoints (which have
// no times) spread evenly between the segment's start and end (docs/imports.md).
import { fromE7 } from './google-records.ts';
import { isObject } from '../../lib/json.ts';
import { jsonRecords } from './json.ts';
import { parseTime, point, type ImportRecord, type Reader } from './reader.ts';

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj => (isObject(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function time(o: Obj, key: string): number | null {
  if (o[`${key}Ms`] !== undefined) {
    const ms = Number(o[`${key}Ms`]);
    return Number.isFinite(ms) ? ms : null;
  }
  return parseTime(o[key]);
}

function lat(o: Obj): number {
  return fromE7(o.latitudeE7 ?? o.latE7);
}
function lon(o: Obj): number {
  return fromE7(o.longitudeE7 ?? o.lngE7);
}

function placeVisit(visit: Obj, where: string, out: ImportRecord[]): void {
  const location = obj(visit.location);
  const duration = obj(visit.duration);
  const y = location.latitudeE7 !== undefined ? lat(location) : fromE7(visit.centerLatE7);
  const x = location.longitudeE7 !== undefined ? lon(location) : fromE7(visit.centerLngE7);
  const start = time(duration, 'startTimestamp');
  const end = time(duration, 'endTimestamp');
  out.push(point(`${where}.placeVisit`, start, y, x, { accuracy: location.accuracyMetres }));
  if (end !== null && end !== start)
    out.push(point(`${where}.placeVisit`, end, y, x, { accuracy: location.accuracyMetres }));
}

function activitySegment(segment: Obj, where: string, out: ImportRecord[]): void {
  const duration = obj(segment.duration);
  const start = time(duration, 'startTimestamp');
  const end = time(duration, 'endTimestamp');
  const startLocation = obj(segment.startLocation);
  const endLocation = obj(segment.endLocation);
  if (segment.startLocation !== undefined)
    out.push(point(`${where}.activitySegment.startLocation`, start, lat(startLocation), lon(startLocation)));
  const waypoints = list(obj(segment.waypointPath).waypoints).map(obj);
  waypoints.forEach((waypoint, i) => {
    const at = start !== null && end !== null ? start + ((end - start) * (i + 1)) / (waypoints.length + 1) : null;
    out.push(point(`${where}.activitySegment.waypointPath.waypoints[${i}]`, at, lat(waypoint), lon(waypoint)));
  });
  list(obj(segment.simplifiedRawPath).points).forEach((raw, i) => {
    const p = obj(raw);
    out.push(
      point(`${where}.activitySegment.simplifiedRawPath.points[${i}]`, time(p, 'timestamp'), lat(p), lon(p), {
        accuracy: p.accuracyMeters,
      }),
    );
  });
  if (segment.endLocation !== undefined)
    out.push(point(`${where}.activitySegment.endLocation`, end, lat(endLocation), lon(endLocation)));
}

export const googleSemantic: Reader = {
  read: (input) =>
    jsonRecords(input, ['$.timelineObjects.*'], (value, out, index) => {
      const where = `${input.name}: timelineObjects[${index}]`;
      const item = obj(value);
      if (isObject(item.placeVisit)) placeVisit(item.placeVisit, where, out);
      if (isObject(item.activitySegment)) activitySegment(item.activitySegment, where, out);
    }),
};
