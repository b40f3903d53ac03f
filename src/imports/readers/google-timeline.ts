// The Timeline export of Google Maps on the phone (2024 on, after Timeline left the cloud).
//
// Android ("Timeline.json"): `{"semanticSegments": [...], "rawSignals": [...], "userLocationProfile": {...}}`.
// A segment has `startTime`/`endTime` and one of `timelinePath` ([{point: "48.1°, 11.5°", time}]),
// `visit` (`topCandidate.placeLocation.latLng`) or `activity` (`start.latLng`, `end.latLng`).
// `rawSignals` holds `position` entries ({LatLng, timestamp, accuracyMeters, altitudeMeters,
// speedMetersPerSecond}) among Wi-Fi scans and activity records. `userLocationProfile` (frequent
// places, no times) is not a history and is ignored.
//
// iOS ("location-history.json"): an array of segments with `startTime`/`endTime` and
// `visit.topCandidate.placeLocation`, `activity.start`/`end` or `timelinePath`
// ([{point: "geo:48.1,11.5", durationMinutesOffsetFromStartTime: "5"}]), values as strings.
//
// Visits and activities give a point at their start and one at their end, as in Semantic
// Location History (docs/imports.md).
import { isObject } from '../../lib/json.ts';
import { jsonRecords } from './json.ts';
import { parseTime, peek, point, withoutBom, type ImportRecord, type Reader } from './reader.ts';

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj => (isObject(value) ? value : {});

/** "48.1234567°, 11.5123456°" or "geo:48.1234567,11.5123456" as [lat, lon]; NaNs when neither. */
export function parseLatLng(value: unknown): [number, number] {
  if (typeof value !== 'string') return [NaN, NaN];
  const match = /^\s*(?:geo:)?\s*(-?\d+(?:\.\d+)?)\s*°?\s*,\s*(-?\d+(?:\.\d+)?)\s*°?\s*$/.exec(value);
  return match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
}

function at(where: string, timeMs: number | null, latLng: unknown, out: ImportRecord[], extras = {}): void {
  const [lat, lon] = parseLatLng(latLng);
  out.push(point(where, timeMs, lat, lon, extras));
}

function startAndEnd(where: string, segment: Obj, start: unknown, end: unknown, out: ImportRecord[]): void {
  const startTime = parseTime(segment.startTime);
  const endTime = parseTime(segment.endTime);
  at(where, startTime, start, out);
  if (endTime !== null && endTime !== startTime) at(where, endTime, end, out);
}

function segment(value: unknown, where: string, out: ImportRecord[]): void {
  const s = obj(value);
  if (Array.isArray(s.timelinePath)) {
    const start = parseTime(s.startTime);
    s.timelinePath.forEach((raw, i) => {
      const p = obj(raw);
      const offset = Number(p.durationMinutesOffsetFromStartTime);
      const time =
        p.time !== undefined
          ? parseTime(p.time)
          : start !== null && Number.isFinite(offset)
            ? start + offset * 60_000
            : null;
      at(`${where}.timelinePath[${i}]`, time, p.point, out);
    });
  }
  if (isObject(s.visit)) {
    const place = obj(s.visit.topCandidate).placeLocation;
    const latLng = isObject(place) ? place.latLng : place;
    startAndEnd(`${where}.visit`, s, latLng, latLng, out);
  }
  if (isObject(s.activity)) {
    const { start, end } = s.activity;
    startAndEnd(`${where}.activity`, s, isObject(start) ? start.latLng : start, isObject(end) ? end.latLng : end, out);
  }
}

function rawSignal(value: unknown, where: string, out: ImportRecord[]): void {
  const position = obj(value).position;
  if (!isObject(position)) return; // Wi-Fi scans, activity records: no point
  at(`${where}.position`, parseTime(position.timestamp), position.LatLng ?? position.latLng, out, {
    accuracy: position.accuracyMeters,
    alt: position.altitudeMeters,
    speed: position.speedMetersPerSecond,
  });
}

export const googleTimeline: Reader = {
  async *read(input) {
    const { head, all: bytes } = await peek(withoutBom(input.bytes), 1024);
    const char = head.toString('utf8').trimStart().charAt(0);
    const name = input.name;
    if (char === '[') {
      yield* jsonRecords({ ...input, bytes }, ['$.*'], (value, out, i) => segment(value, `${name}: [${i}]`, out));
      return;
    }
    yield* jsonRecords({ ...input, bytes }, ['$.semanticSegments.*', '$.rawSignals.*'], (value, out, i, top) => {
      if (top === 'rawSignals') rawSignal(value, `${name}: rawSignals[${i}]`, out);
      else segment(value, `${name}: semanticSegments[${i}]`, out);
    });
  },
};
