// What the bytes of a medium tell, shared by the server (media.probe.ts) and the image worker
// (media.image.ts, run by image-workers.ts): the facts, the thumbnail's size, the image types a
// public copy keeps, and how EXIF's wall-clock time becomes an instant.
import { zonedToUtc } from '../lib/time.ts';

export type MediaKind = 'image' | 'video' | 'audio';

export interface Probe {
  kind: MediaKind;
  mimeType: string;
  width: number | null;
  height: number | null;
  /** How long video or audio lasts, in seconds; null for images and when unknown. */
  durationS: number | null;
  /** When it was taken (EXIF, or the recording's creation time), milliseconds; null when the file does not say. */
  takenMs: number | null;
  location: { lat: number; lon: number } | null;
}

/** What the image worker learns of an image. */
export type ImageFacts = Pick<Probe, 'width' | 'height' | 'takenMs' | 'location'>;

/** A re-encoded copy that a target with a size limit takes (docs/api.md "Services and groups"). */
export interface Fitted {
  width: number;
  height: number;
  size: number;
}

/**
 * EXIF DateTimeOriginal is the camera's wall clock, without a zone. Its own offset
 * (OffsetTimeOriginal, EXIF 2.31) decides when present; otherwise the owner's time zone
 * setting. Read as strings: exifr would revive them as Dates in this process's zone
 * (docs/design.md "Pitfalls").
 */
export function exifTimeMs(dateTime: unknown, offset: unknown, timeZone: string): number | null {
  if (typeof dateTime !== 'string') return null;
  const match = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(dateTime);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 1800 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return null;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const explicit = typeof offset === 'string' ? /^([+-])(\d{2}):(\d{2})$/.exec(offset) : null;
  if (explicit) {
    const sign = explicit[1] === '-' ? -1 : 1;
    return wall - sign * (Number(explicit[2]) * 60 + Number(explicit[3])) * 60_000;
  }
  return zonedToUtc(wall, timeZone);
}

/** The longest side of a thumbnail, in pixels. */
export const THUMBNAIL_SIZE = 320;

/** The formats the public copy of an image keeps (media.image.ts); anything else becomes WebP. */
export const REENCODED_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
] as const;
