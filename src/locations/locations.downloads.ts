// Whole-history downloads (docs/history.md "Downloads"): `all=true` on the location
// collections streams every matching point, oldest first, in keyset batches: constant memory,
// the first bytes as soon as the first batch is read, and a client that goes away stops the
// reading at the next batch with nothing left open (src/locations/points.repo.ts).
import { Readable } from 'node:stream';
import type { Db } from '../db/database.ts';
import { badRequest } from '../core/errors.ts';
import { toPageQuery } from '../items/items.logic.ts';
import { chosenFormat, type ListContext } from '../items/kinds.ts';
import { escapeHtml } from '../lib/html.ts';
import { toLocation } from './locations.logic.ts';
import { LOCATION_FIELDS, type LocationFields } from './locations.repo.ts';
import { EXACT_PLACES, publicPlacesOf } from '../privacy/places.ts';
import { eachBatch } from './points.repo.ts';
import type { Location, LocationsParams } from './locations.schemas.ts';

async function* mapBatches<T, U>(batches: AsyncIterable<T>, map: (batch: T) => U): AsyncGenerator<U> {
  for await (const batch of batches) yield map(batch);
}

/** Rows per query. */
const DOWNLOAD_BATCH = 1000;
/**
 * Rows per chunk written: about 35 KB of text. A string over V8's regular object size (about
 * 128 KB) goes to the large-object space, which only a full collection frees: chunks of a whole
 * batch (350 KB) grew the server's memory by 140 MB over a 1,000,000-point download.
 */
const CHUNK_ROWS = 100;

export type DownloadFormat = 'json' | 'geojson' | 'gpx' | 'csv' | 'geojsonseq';

export const TYPES: Record<DownloadFormat, string> = {
  json: 'application/json; charset=utf-8',
  geojson: 'application/geo+json',
  gpx: 'application/gpx+xml; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  geojsonseq: 'application/geo+json-seq',
};

const EXTENSIONS: Record<DownloadFormat, string> = {
  json: 'json',
  geojson: 'geojson',
  gpx: 'gpx',
  csv: 'csv',
  geojsonseq: 'geojsons',
};

export interface Download {
  type: string;
  filename: string;
  body: Readable;
}

interface Writer {
  head: string;
  /** One batch of points as text; `first` tells whether anything came before. */
  batch(points: Location[], first: boolean): string;
  tail: string;
}

const CSV_COLUMNS = [
  'id',
  'time',
  'time_iso',
  'lat',
  'lon',
  'alt',
  'accuracy',
  'speed',
  'heading',
  'scope',
  'source',
  'created_at',
] as const;

/**
 * A finite number as text, as String() writes it. JSON.stringify writes it without the
 * number-to-string cache that String() and template literals fill, whose strings outlive the
 * young generation (see toFeature).
 */
const numberText = (value: number) => JSON.stringify(value);

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return numberText(value);
  const text = value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRows(points: Location[]): string {
  let out = '';
  for (const point of points) {
    const row = { ...point, time_iso: new Date(point.time * 1000).toISOString() };
    out += CSV_COLUMNS.map((column) => csvField(row[column])).join(',') + '\r\n';
  }
  return out;
}
export const CSV_HEADER = CSV_COLUMNS.join(',') + '\r\n';

/**
 * A point as a GeoJSON Feature (RFC 7946 3.2): longitude, latitude, then altitude when there is
 * one; the point's other fields are the properties. Downloads write millions of these with
 * JSON.stringify, which writes numbers straight into its output: building the text by hand
 * turned every coordinate into a string of its own that outlived the young generation (V8 keeps
 * recent number-to-string results), and grew the server's heap by 150 MB over a million points.
 */
export function toFeature(p: Location) {
  return {
    type: 'Feature' as const,
    id: p.id,
    geometry: { type: 'Point' as const, coordinates: p.alt === null ? [p.lon, p.lat] : [p.lon, p.lat, p.alt] },
    properties: {
      id: p.id,
      username: p.username,
      scope: p.scope,
      time: p.time,
      accuracy: p.accuracy,
      speed: p.speed,
      heading: p.heading,
      source: p.source,
      created_at: p.created_at,
      alt: p.alt,
    },
  };
}

/** RFC 8142: every record is RS, a JSON text, LF. */
export function geojsonSeq(points: Location[]): string {
  return points.map((point) => `\x1e${JSON.stringify(toFeature(point))}\n`).join('');
}

function writer(format: DownloadFormat, title: string): Writer {
  // A batch of an array's elements: the array's JSON without its brackets, after a comma but first.
  const elements = (items: unknown[], first: boolean) =>
    items.length === 0 ? '' : (first ? '' : ',') + JSON.stringify(items).slice(1, -1);
  switch (format) {
    case 'json':
      return {
        head: '[',
        batch: elements,
        tail: ']',
      };
    case 'geojson':
      return {
        head: '{"type":"FeatureCollection","features":[',
        batch: (points, first) => elements(points.map(toFeature), first),
        tail: ']}',
      };
    case 'geojsonseq':
      return { head: '', batch: geojsonSeq, tail: '' };
    case 'csv':
      return { head: CSV_HEADER, batch: (points) => csvRows(points), tail: '' };
    case 'gpx':
      return {
        head:
          '<?xml version="1.0" encoding="UTF-8"?>\n<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="Waypost">' +
          `<metadata><name>${escapeHtml(title)}</name></metadata><trk><name>${escapeHtml(title)}</name><trkseg>`,
        batch: (points) =>
          points
            .map(
              (p) =>
                `<trkpt lat="${numberText(p.lat)}" lon="${numberText(p.lon)}">` +
                (p.alt === null ? '' : `<ele>${numberText(p.alt)}</ele>`) +
                `<time>${new Date(p.time * 1000).toISOString()}</time></trkpt>`,
            )
            .join(''),
        tail: '</trkseg></trk></gpx>\n',
      };
  }
}

/** What a download is by Accept (a sequence before plain GeoJSON, whose type starts it). */
const DOWNLOAD_BY_ACCEPT = [
  ['application/geo+json-seq', 'geojsonseq'],
  ['application/geo+json', 'geojson'],
  ['application/gpx+xml', 'gpx'],
  ['text/csv', 'csv'],
] as const;

/**
 * The whole collection (or its time range) as a stream, when the request says `all=true`;
 * undefined otherwise. Public collections are public points as strangers get them, as their
 * pages are; the owner reading with `get_private_scope` gets them exact, as the private ones.
 */
export async function locationDownload(
  db: Db,
  ctx: ListContext<LocationsParams>,
  accept: string | undefined,
): Promise<Download | undefined> {
  if (ctx.query.all !== true) return undefined;
  const errors = [
    ...(ctx.query.cursor === undefined ? [] : [{ path: 'querystring/cursor', message: 'is not taken with all=true' }]),
    ...(ctx.query.bbox === undefined ? [] : [{ path: 'querystring/bbox', message: 'is not taken with all=true' }]),
  ];
  if (errors.length > 0) throw badRequest('A download (all=true) takes since_time and until_time only.', errors);
  const { sinceMs, untilMs } = toPageQuery(ctx.query, ctx.cursors);
  const format = chosenFormat(accept, ctx.query.format, DOWNLOAD_BY_ACCEPT);
  const places = ctx.scope === 'private' || ctx.exact ? EXACT_PLACES : await publicPlacesOf(db, ctx.owner.id);
  const { username } = ctx.owner;
  const out = writer(format, `${username}: ${ctx.scope} locations`);
  const query = { userId: ctx.owner.id, scope: ctx.scope, sinceMs, untilMs };
  let first = true;
  /** A batch's rows as chunks of text, written before any is sent, so the rows die young. */
  const chunksOf = (rows: LocationFields[]) => {
    const chunks: string[] = [];
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      chunks.push(
        out.batch(
          rows.slice(start, start + CHUNK_ROWS).map((row) => toLocation(row, username, places)),
          first,
        ),
      );
      first = false;
    }
    return chunks;
  };
  async function* text() {
    yield out.head;
    for await (const chunks of mapBatches(eachBatch(db, query, LOCATION_FIELDS, DOWNLOAD_BATCH), chunksOf))
      yield* chunks;
    yield out.tail;
  }
  return {
    type: TYPES[format],
    filename: `${username}-locations-${ctx.scope}.${EXTENSIONS[format]}`,
    body: Readable.from(text(), { objectMode: false }),
  };
}
