// Every format an import reads, by the name the API uses (formats.ts). One reader per format
// behind one interface (readers/reader.ts); src/imports/detect.ts tells them apart.
import { csv } from './csv.ts';
import type { FormatName } from './formats.ts';
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
