// The names of the formats an import reads, as the API uses them (`format` of an import):
// what detection (src/imports/detect.ts) answers and the readers (index.ts) are keyed by.

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

export function isFormat(value: string): value is FormatName {
  return (FORMATS as readonly string[]).includes(value);
}
