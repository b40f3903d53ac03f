// What every format's reader yields, and the checks they share. A reader turns a stream of
// bytes into records, in file order, a chunk at a time (whatever one chunk of input held), so
// the import never holds more than a batch whatever the file's size. A record is a point, a
// skipped point (no time, coordinates out of range), or an error about the file itself (it
// ends early, it is not well-formed); the import counts and stores them (docs/imports.md).
import { within, type Fix, type PointField } from '../../locations/point.ts';
import { TIME_LIMIT_MS, TIME_LIMIT_S } from '../../lib/time.ts';
import { JSON_DEPTH_MAX } from '../../lib/json-depth.ts';

/**
 * The bounds every reader keeps, whatever the file (docs/imports.md "Limits"). Real files stay
 * far inside them: Takeout's JSON nests 7 levels at most (GeoJSON's MultiPolygon 8), a record is
 * a few kilobytes (a GeoJSON track of a day at 1 Hz, about 5 MiB), a string a few hundred bytes.
 * A file past one is refused with a ReadLimitError naming it, before it can fill memory.
 */
export const READ_LIMITS = {
  /** Containers (JSON arrays and objects, XML elements) open at once. */
  depth: JSON_DEPTH_MAX,
  /** Bytes of one record (a JSON value in a list of records, or any value outside one) or of one XML element's text. */
  recordBytes: 16 * 1024 ** 2,
  /** Bytes of one line of a line format (a CSV row, an OwnTracks line). */
  lineBytes: 1024 ** 2,
  /** Bytes of one JSON string or number. */
  stringBytes: 1024 ** 2,
};

/** The stable codes of a refused file, the start of the failed import's message. */
export type ReadLimitCode = 'import_too_deep' | 'record_too_large' | 'string_too_long';

/** A file past one of READ_LIMITS: the import stops and fails (no retry reads it better). */
export class ReadLimitError extends Error {
  readonly permanent = true;
  readonly code: ReadLimitCode;
  constructor(code: ReadLimitCode, where: string, detail: string) {
    super(`${code}: ${where} ${detail}`);
    this.name = 'ReadLimitError';
    this.code = code;
  }
}

export const tooDeep = (where: string) =>
  new ReadLimitError(
    'import_too_deep',
    where,
    `nests deeper than ${READ_LIMITS.depth} levels; the file was not read further`,
  );

export interface PointRecord extends Fix {
  kind: 'point';
}

/** A point that cannot be stored; `message` (when given) goes to the import's errors. */
export interface SkipRecord {
  kind: 'skip';
  where?: string;
  message?: string;
}

/** Something wrong with the file rather than one point (truncated, malformed, not read). */
export interface ErrorRecord {
  kind: 'error';
  where: string;
  message: string;
}

export type ImportRecord = PointRecord | SkipRecord | ErrorRecord;

export interface ReadInput {
  /** The bytes, in order. */
  bytes: AsyncIterable<Uint8Array>;
  /** The file's name (an entry's name inside a zip), for `where` in errors. */
  name: string;
  /** The file on disk, for a format that needs to seek (zip). */
  path?: string;
  /** A reader that does not read `bytes` in order (zip) says how far it is, 0 to 1. */
  progress?: (fraction: number) => void;
}

export interface Reader {
  read(input: ReadInput): AsyncIterable<ImportRecord[]>;
}

export interface PointExtras {
  alt?: unknown;
  accuracy?: unknown;
  speed?: unknown;
  heading?: unknown;
}

// The ranges POST /locations takes; out of range in a file is "unknown", not a reason to drop the point.
function optional(value: unknown, field: PointField): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && within(n, field) ? n : null;
}

function coordinate(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return NaN;
}

/** A point record, or a skip saying what is wrong with it. */
export function point(
  where: string,
  timeMs: number | null,
  lat: unknown,
  lon: unknown,
  extras: PointExtras = {},
): ImportRecord {
  if (timeMs === null || !Number.isFinite(timeMs) || Math.abs(timeMs) > TIME_LIMIT_MS) {
    return { kind: 'skip', where, message: 'has no valid time' };
  }
  const y = coordinate(lat);
  const x = coordinate(lon);
  if (!within(y, 'lat') || !within(x, 'lon')) {
    return { kind: 'skip', where, message: 'has no valid latitude and longitude' };
  }
  return {
    kind: 'point',
    timeMs: Math.round(timeMs),
    lat: y,
    lon: x,
    alt: optional(extras.alt, 'alt'),
    accuracy: optional(extras.accuracy, 'accuracy'),
    speed: optional(extras.speed, 'speed'),
    heading: optional(extras.heading, 'heading'),
  };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * A time as files write it: ISO 8601 / RFC 3339 (without a zone: UTC), or a number of epoch
 * seconds, or of milliseconds when it is too large to be seconds (after the year 5138).
 */
export function parseTime(value: unknown): number | null {
  if (typeof value === 'number')
    return Number.isFinite(value) ? (Math.abs(value) >= TIME_LIMIT_S ? value : value * 1000) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return parseTime(Number(text));
  if (!ISO_DATE.test(text)) return null;
  if (text.length === 10) return Date.parse(text); // a date alone is UTC midnight
  const zoned = /([Zz]|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(zoned.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : null;
}

/** Bytes without a leading UTF-8 byte-order mark. */
export async function* withoutBom(bytes: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let first = true;
  for await (const chunk of bytes) {
    if (first && chunk.length > 0) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        if (chunk.length > 3) yield chunk.subarray(3);
        continue;
      }
    }
    if (chunk.length > 0) yield chunk;
  }
}

/** UTF-8 text in chunks (a character split across chunks is put together), without a BOM. */
export async function* text(bytes: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  for await (const chunk of bytes) {
    const part = decoder.decode(chunk, { stream: true });
    if (part) yield part;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * Looks at the first bytes (at least `bytes` of them, or all there are) without losing them:
 * returns them and the whole stream again, from the start.
 */
export async function peek(
  source: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ head: Buffer; all: AsyncIterable<Uint8Array> }> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let length = 0;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) break;
    seen.push(next.value);
    length += next.value.length;
  }
  async function* all(): AsyncIterable<Uint8Array> {
    yield* seen;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: Buffer.concat(seen), all: all() };
}
