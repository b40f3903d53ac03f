// Every format an import reads, by the name the API uses (`format` of an import). One reader
// per format behind one interface (readers/reader.ts); src/imports/detect.ts tells them apart.
import { csv } from './csv.ts';
import { geojson } from './geojson.ts';
import { googleRecords } from './google-records.ts';
import { googleSemantic } from './google-semantic.ts';
import { googleTimeline } from './google-timeline.ts';
import { gpx } from './gpx.ts';
import { kml } from './kml.ts';
import { owntracks } from './owntracks.ts';
import type { Reader } from './reader.ts';
import { tcx } from './tcx.ts';
import { zipReader } from './zip.ts';

export const FORMATS = [
  'google-records',
  'google-semantic',
  'google-timeline',
  'gpx',
  'kml',
  'kmz',
  'geojson',
  'csv',
  'owntracks',
  'tcx',
  'zip',
] as const;
export type FormatName = (typeof FORMATS)[number];

const zip = zipReader(() => readers);

export const readers: Record<FormatName, Reader> = {
  'google-records': googleRecords,
  'google-semantic': googleSemantic,
  'google-timeline': googleTimeline,
  gpx,
  kml,
  kmz: zip,
  geojson,
  csv,
  owntracks,
  tcx,
  zip,
};

export function isFormat(value: string): value is FormatName {
  return (FORMATS as readonly string[]).includes(value);
}
