// Every format an import reads, by the name the API uses (`format` of an import). One reader
// per format behind one interface (readers/reader.ts); src/imports/detect.ts tells them apart.
import { googleRecords } from './google-records.ts';
import { gpx } from './gpx.ts';
import type { Reader } from './reader.ts';

export const FORMATS = ['google-records', 'gpx'] as const;
export type FormatName = (typeof FORMATS)[number];

export const readers = {
  'google-records': googleRecords,
  gpx,
} satisfies Record<FormatName, Reader>;

export function isFormat(value: string): value is FormatName {
  return (FORMATS as readonly string[]).includes(value);
}
