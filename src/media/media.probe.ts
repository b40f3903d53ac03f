// What a file is, from its bytes (never the client's word): the type by file-type; for images
// EXIF time and GPS, size and a WebP thumbnail without metadata by the image worker
// (image-workers.ts), for video and audio all of it by ffprobe and a frame ffmpeg takes.
import { fileTypeFromFile } from 'file-type';
import { videoFrame, type MediaTools } from './media.ffmpeg.ts';
import { probeAv } from './media.ffprobe.ts';
import { zonedToUtc } from '../lib/time.ts';
import type { MediaJobs } from './image-workers.ts';

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

/** The sniffed type, or undefined when the bytes are not an image, video or audio. */
export async function sniff(path: string): Promise<{ kind: MediaKind; mimeType: string } | undefined> {
  const type = await fileTypeFromFile(path);
  const kind = type?.mime.split('/')[0];
  if (!type || (kind !== 'image' && kind !== 'video' && kind !== 'audio')) return undefined;
  return { kind, mimeType: type.mime };
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

/**
 * The facts of a file and its thumbnail (none for audio or when it cannot be made). Images go to
 * the image worker, which refuses one over a limit (LimitError); a video's frame is taken by
 * ffmpeg and made a thumbnail there too.
 */
export async function probe(
  path: string,
  sniffed: { kind: MediaKind; mimeType: string },
  timeZone: string,
  tools: MediaTools,
  jobs: MediaJobs,
): Promise<{ facts: Probe; thumbnail: Buffer | undefined }> {
  if (sniffed.kind === 'image') {
    const { thumbnail, ...facts } = await jobs.run({ op: 'inspect', path, mimeType: sniffed.mimeType, timeZone });
    return { facts: { ...sniffed, durationS: null, ...facts }, thumbnail: thumbnail && toBuffer(thumbnail) };
  }
  const facts: Probe = { ...sniffed, ...(await probeAv(tools.ffprobe, path, sniffed.mimeType, sniffed.kind)) };
  if (facts.kind !== 'video' || !tools.ffmpeg) return { facts, thumbnail: undefined };
  const frame = await videoFrame(tools.ffmpeg, path, facts.mimeType, facts.durationS, THUMBNAIL_SIZE);
  const thumbnail = frame && (await jobs.run({ op: 'thumbnail', input: frame }));
  return { facts, thumbnail: thumbnail && toBuffer(thumbnail) };
}

const toBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

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

/** The media type of the public copy of an image. */
export function withoutMetadataType(mimeType: string): string {
  return (REENCODED_TYPES as readonly string[]).includes(mimeType) ? mimeType : 'image/webp';
}
