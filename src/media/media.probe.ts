// What a file is, from its bytes (never the client's word): the type by file-type; for images
// EXIF time and GPS by exifr and size by sharp, for video and audio all of it by ffprobe; and a
// WebP thumbnail written by sharp without metadata (of a frame ffmpeg takes, for video).
import exifr from 'exifr';
import { fileTypeFromFile } from 'file-type';
import sharp, { type Sharp } from 'sharp';
import { videoFrame, type MediaTools } from './media.ffmpeg.ts';
import { probeAv } from './media.ffprobe.ts';

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

/** The sniffed type, or undefined when the bytes are not an image, video or audio. */
export async function sniff(path: string): Promise<{ kind: MediaKind; mimeType: string } | undefined> {
  const type = await fileTypeFromFile(path);
  const kind = type?.mime.split('/')[0];
  if (!type || (kind !== 'image' && kind !== 'video' && kind !== 'audio')) return undefined;
  return { kind, mimeType: type.mime };
}

/** Offset of a time zone from UTC at an instant, in milliseconds. */
function zoneOffsetMs(timeZone: string, instant: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * EXIF DateTimeOriginal is the camera's wall clock, without a zone. Its own offset
 * (OffsetTimeOriginal, EXIF 2.31) decides when present; otherwise the owner's time zone
 * setting. Read as strings: exifr would revive them as Dates in this process's zone
 * (DESIGN.md pitfall).
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
  // Twice, so a wall time near a daylight-saving change lands on the right side of it.
  const first = wall - zoneOffsetMs(timeZone, wall);
  return wall - zoneOffsetMs(timeZone, first);
}

async function readExif(path: string, timeZone: string): Promise<Pick<Probe, 'takenMs' | 'location'>> {
  try {
    const exif = (await exifr.parse(path, { reviveValues: false, gps: true, tiff: true, exif: true })) as
      Record<string, unknown> | undefined;
    if (!exif) return { takenMs: null, location: null };
    const { latitude: lat, longitude: lon } = exif;
    const valid = typeof lat === 'number' && typeof lon === 'number' && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
    return {
      takenMs: exifTimeMs(exif.DateTimeOriginal ?? exif.CreateDate, exif.OffsetTimeOriginal, timeZone),
      location: valid ? { lat, lon } : null,
    };
  } catch {
    // A file without EXIF, or with EXIF exifr cannot read, is still a medium.
    return { takenMs: null, location: null };
  }
}

export async function probe(
  path: string,
  sniffed: { kind: MediaKind; mimeType: string },
  timeZone: string,
  tools: MediaTools,
): Promise<Probe> {
  if (sniffed.kind !== 'image') {
    const recording = await probeAv(tools.ffprobe, path, sniffed.mimeType, sniffed.kind);
    return { ...sniffed, ...recording };
  }
  const base: Probe = { ...sniffed, width: null, height: null, durationS: null, takenMs: null, location: null };
  const exif = await readExif(path, timeZone);
  try {
    const meta = await sharp(path).metadata();
    // As displayed: EXIF orientation 5 to 8 swaps width and height.
    return { ...base, ...exif, width: meta.autoOrient.width, height: meta.autoOrient.height };
  } catch {
    return { ...base, ...exif };
  }
}

export const THUMBNAIL_SIZE = 320;

/**
 * A WebP thumbnail at most 320 px on a side, turned upright. sharp writes no metadata unless
 * asked (no EXIF, no GPS), so a thumbnail never carries where the photo was taken.
 */
export async function thumbnail(input: string | Buffer): Promise<Buffer | undefined> {
  try {
    return await sharp(input)
      .rotate()
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  } catch {
    return undefined; // a format sharp cannot decode (some RAW, HEIC): no thumbnail
  }
}

/** The thumbnail of an image, or of a frame of a video; none for audio or when it cannot be made. */
export async function thumbnailOf(path: string, facts: Probe, tools: MediaTools): Promise<Buffer | undefined> {
  if (facts.kind === 'image') return thumbnail(path);
  if (facts.kind !== 'video' || !tools.ffmpeg) return undefined;
  const frame = await videoFrame(tools.ffmpeg, path, facts.mimeType, facts.durationS, THUMBNAIL_SIZE);
  return frame && thumbnail(frame);
}

/** The formats sharp writes back as they came; anything else becomes WebP. */
const REENCODE: Record<string, (image: Sharp) => Sharp> = {
  'image/jpeg': (image) => image.jpeg({ quality: 92 }),
  'image/png': (image) => image.png(),
  'image/webp': (image) => image.webp({ quality: 92 }),
  'image/gif': (image) => image.gif(),
  'image/avif': (image) => image.avif(),
  'image/tiff': (image) => image.tiff(),
};

/**
 * The picture without its metadata (EXIF, XMP, IPTC: camera, time and exact GPS), turned upright
 * first because the orientation tag goes too. Undefined when sharp cannot read the file.
 */
export async function withoutMetadata(path: string, mimeType: string): Promise<Buffer | undefined> {
  try {
    const image = sharp(path, { animated: true }).rotate();
    const encode = REENCODE[mimeType] ?? ((upright: Sharp) => upright.webp({ quality: 92 }));
    return await encode(image).toBuffer();
  } catch {
    return undefined;
  }
}

/** The media type of the copy `withoutMetadata` makes. */
export function withoutMetadataType(mimeType: string): string {
  return REENCODE[mimeType] ? mimeType : 'image/webp';
}
