// Google Takeout `Records.json`: `{"locations": [{latitudeE7, longitudeE7, timestamp | timestampMs,
// accuracy, altitude, velocity, heading, ...}]}`, coordinates in degrees times 10^7, `timestamp`
// in ISO 8601 (exports since 2022) or `timestampMs` as a string of epoch milliseconds (before).
import { isObject } from '../../lib/json.ts';
import { jsonRecords } from './json.ts';
import { parseTime, point, type ImportRecord, type ReadInput, type Reader } from './reader.ts';

/**
 * Degrees from an E7 integer. Some exports hold values past ±90/±180 degrees: signed 32-bit
 * numbers written as unsigned, which wrap back by 2^32.
 */
export function fromE7(value: unknown): number {
  if (typeof value !== 'number') return NaN;
  const wrapped = value > 1_800_000_000 ? value - 4_294_967_296 : value;
  return wrapped / 1e7;
}

export function recordTime(record: Record<string, unknown>): number | null {
  if (record.timestampMs !== undefined) {
    const ms = Number(record.timestampMs);
    return Number.isFinite(ms) ? ms : null;
  }
  return typeof record.timestamp === 'string' ? parseTime(record.timestamp) : null;
}

function onLocation(value: unknown, out: ImportRecord[], index: number, name: string): void {
  const where = `${name}: locations[${index}]`;
  if (!isObject(value)) {
    out.push({ kind: 'skip', where, message: 'is not an object' });
    return;
  }
  out.push(
    point(where, recordTime(value), fromE7(value.latitudeE7), fromE7(value.longitudeE7), {
      alt: value.altitude,
      accuracy: value.accuracy,
      speed: value.velocity,
      heading: value.heading,
    }),
  );
}

export const googleRecords: Reader = {
  read: (input: ReadInput) =>
    jsonRecords(input, ['$.locations.*'], (value, out, index) => onLocation(value, out, index, input.name)),
};
