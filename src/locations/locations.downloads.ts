// Whole-history downloads (docs/history.md "Downloads"): `all=true` on the location
// collections streams every matching point, oldest first, in keyset batches: constant memory,
// the first bytes as soon as the first batch is read, and a client that goes away stops the
// reading at the next batch with nothing left open (src/locations/points.repo.ts).
import { Readable } from 'node:stream';
import type { Db } from '../db/database.ts';
import { badRequest } from '../http/errors.ts';
import { toPageQuery } from '../items/items.logic.ts';
import { chosenFormat, type ListContext } from '../items/kinds.ts';
import { escapeHtml } from '../lib/html.ts';
import { toLocation, type Location, type LocationsParams } from './locations.logic.ts';
import { EXACT_PLACES, publicPlacesOf } from '../privacy/places.ts';
import { eachBatch } from './points.repo.ts';

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

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
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
 * One Feature as JSON text, equal to `JSON.stringify` of the feature src/locations/locations.formats.ts
 * `toGeoJson` makes (a test compares them), written out directly: a download writes millions.
 */
export function featureJson(p: Location): string {
  const coordinates = p.alt === null ? `[${p.lon},${p.lat}]` : `[${p.lon},${p.lat},${p.alt}]`;
  const id = JSON.stringify(p.id);
  return (
    `{"type":"Feature","id":${id},"geometry":{"type":"Point","coordinates":${coordinates}},"properties":{` +
    `"id":${id},"username":${JSON.stringify(p.username)},"scope":"${p.scope}","time":${p.time},` +
    `"accuracy":${p.accuracy},"speed":${p.speed},"heading":${p.heading},"source":${JSON.stringify(p.source)},` +
    `"created_at":${p.created_at},"alt":${p.alt}}}`
  );
}

/** RFC 8142: every record is RS, a JSON text, LF. */
export function geojsonSeq(points: Location[]): string {
  return points.map((point) => `\x1e${featureJson(point)}\n`).join('');
}

function writer(format: DownloadFormat, title: string): Writer {
  const joined = (items: string[], first: boolean) => (items.length === 0 ? '' : (first ? '' : ',') + items.join(','));
  switch (format) {
    case 'json':
      return {
        head: '[',
        batch: (points, first) =>
          joined(
            points.map((p) => JSON.stringify(p)),
            first,
          ),
        tail: ']',
      };
    case 'geojson':
      return {
        head: '{"type":"FeatureCollection","features":[',
        batch: (points, first) => joined(points.map(featureJson), first),
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
                `<trkpt lat="${p.lat}" lon="${p.lon}">${p.alt === null ? '' : `<ele>${p.alt}</ele>`}` +
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
 * undefined otherwise. Public collections are public points at the owner's precision, as
 * their pages are; the owner's private collection is exact.
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
  const { sinceMs, untilMs } = toPageQuery(ctx.query);
  const format = chosenFormat(accept, ctx.query.format, DOWNLOAD_BY_ACCEPT);
  const places = ctx.scope === 'public' ? await publicPlacesOf(db, ctx.owner.id) : EXACT_PLACES;
  const { username } = ctx.owner;
  const out = writer(format, `${username}: ${ctx.scope} locations`);
  const query = { userId: ctx.owner.id, scope: ctx.scope, sinceMs, untilMs };
  async function* text() {
    yield out.head;
    let first = true;
    for await (const rows of eachBatch(db, query, DOWNLOAD_BATCH)) {
      for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
        const points = rows.slice(start, start + CHUNK_ROWS).map((row) => toLocation(row, username, places));
        yield out.batch(points, first);
        first = false;
      }
    }
    yield out.tail;
  }
  return {
    type: TYPES[format],
    filename: `${username}-locations-${ctx.scope}.${EXTENSIONS[format]}`,
    body: Readable.from(text(), { objectMode: false }),
  };
}
