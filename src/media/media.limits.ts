// Limits on what one image may cost, checked in the image worker (media.worker.ts) before any
// decoder sees the file: how many bytes of metadata it carries, and whether its EXIF
// directories form a tree. libexif (inside sharp) follows EXIF, GPS and interoperability
// pointers recursively; directories that point back at each other make a file of a few hundred
// bytes cost it tens of seconds, so such a file is refused here instead.
import { open, type FileHandle } from 'node:fs/promises';
import type { ProblemCode } from '../core/problems.ts';

export interface MediaLimits {
  /** Pixels of the decoded image, every frame counted. */
  maxPixels: number;
  /** Bytes of metadata (EXIF, XMP, ICC, comments, text chunks) in one file. */
  maxMetadataBytes: number;
}

/** The problems a file's limits can raise (src/core/problems.ts). */
export type LimitCode = Extract<
  ProblemCode,
  | 'media_metadata_too_large'
  | 'media_metadata_invalid'
  | 'media_too_many_pixels'
  | 'media_processing_failed'
  | 'media_processing_timeout'
>;

/** A file that trips a limit: refused with `code` and a detail that names the limit. */
export class LimitError extends Error {
  readonly code: LimitCode;
  constructor(code: LimitCode, detail: string) {
    super(detail);
    this.name = 'LimitError';
    this.code = code;
  }
}

/** Segments or chunks read before giving up on a file's layout; real files have a few dozen. */
const MAX_PARTS = 4096;
/** EXIF directories in one file: IFD0, IFD1, EXIF, GPS, interoperability, and a few spare. */
const MAX_IFDS = 16;
/** EXIF pointers libexif follows: the EXIF, GPS and interoperability directories. */
const IFD_POINTERS = new Set([0x8769, 0x8825, 0xa005]);

const tooMuchMetadata = (limits: MediaLimits) =>
  new LimitError(
    'media_metadata_too_large',
    `The file carries more than ${limits.maxMetadataBytes} bytes of metadata (WAYPOST_MEDIA_MAX_METADATA_BYTES).`,
  );

const invalidExif = (why: string) =>
  new LimitError('media_metadata_invalid', `The file's EXIF metadata is malformed: ${why}.`);

/**
 * Walks the directories of an EXIF block (a TIFF structure, CIPA DC-008 4.6) the way libexif
 * does, and refuses one that reaches a directory twice or has too many of them.
 */
export function checkExifStructure(tiff: Buffer): void {
  if (tiff.length < 8) return;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const seen = new Set<number>();
  const visit = (offset: number, followNext: boolean) => {
    if (offset < 8 || offset + 2 > tiff.length) return; // outside the block: nothing is read there
    if (seen.has(offset)) throw invalidExif('its directories point back at each other');
    seen.add(offset);
    if (seen.size > MAX_IFDS) throw invalidExif(`it has more than ${MAX_IFDS} directories`);
    const count = u16(offset);
    for (let i = 0; i < count; i += 1) {
      const entry = offset + 2 + i * 12;
      if (entry + 12 > tiff.length) break;
      if (IFD_POINTERS.has(u16(entry))) visit(u32(entry + 8), false);
    }
    const next = offset + 2 + count * 12;
    // Only IFD0 links on (to IFD1, the thumbnail's directory).
    if (followNext && next + 4 <= tiff.length) visit(u32(next), false);
  };
  visit(u32(4), true);
}

/** The TIFF block of an EXIF payload, with or without the `Exif\0\0` prefix JPEG and WebP use. */
function exifBlock(payload: Buffer): Buffer {
  return payload.toString('latin1', 0, 6) === 'Exif\0\0' ? payload.subarray(6) : payload;
}

/** Reads through a 64 KiB window, so a file of many small parts costs few system calls. */
function reader(file: FileHandle) {
  let start = 0;
  let window = Buffer.alloc(0);
  return async (position: number, length: number): Promise<Buffer> => {
    if (position >= start && position + length <= start + window.length) {
      return window.subarray(position - start, position - start + length);
    }
    const buffer = Buffer.alloc(Math.max(length, 65_536));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    [start, window] = [position, buffer.subarray(0, bytesRead)];
    return window.subarray(0, Math.min(length, bytesRead));
  };
}
type Read = ReturnType<typeof reader>;

/** Counts metadata bytes against the limit; returns the new total. */
function count(total: number, bytes: number, limits: MediaLimits): number {
  const sum = total + bytes;
  if (sum > limits.maxMetadataBytes) throw tooMuchMetadata(limits);
  return sum;
}

/** JPEG (ITU T.81 B.1): the marker segments before the first scan; APPn and COM are metadata. */
async function scanJpeg(read: Read, limits: MediaLimits): Promise<void> {
  let position = 2;
  let total = 0;
  for (let parts = 0; parts < MAX_PARTS; parts += 1) {
    const head = await read(position, 4);
    if (head.length < 4 || head[0] !== 0xff) return;
    const marker = head[1]!;
    if (marker === 0xff) {
      position += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      position += 2; // markers without a length
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return; // start of scan, end of image
    const length = head.readUInt16BE(2);
    if ((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe) {
      total = count(total, length - 2, limits);
      if (marker === 0xe1) {
        const payload = await read(position + 4, length - 2);
        if (payload.toString('latin1', 0, 6) === 'Exif\0\0') checkExifStructure(exifBlock(payload));
      }
    }
    position += 2 + length;
  }
  throw tooMuchMetadata(limits);
}

/** PNG (ISO 15948 5.3): ancillary chunks (a lower-case first letter) are metadata. */
async function scanPng(read: Read, size: number, limits: MediaLimits): Promise<void> {
  let position = 8;
  let total = 0;
  // Image data may come in many small chunks; they are read through, only metadata counts.
  let ancillary = 0;
  while (position + 8 <= size) {
    const head = await read(position, 8);
    if (head.length < 8) return;
    const length = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    if (type === 'IEND') return;
    if ((head[4]! & 0x20) !== 0) {
      ancillary += 1;
      if (ancillary > MAX_PARTS) throw tooMuchMetadata(limits);
      total = count(total, length, limits);
      if (type === 'eXIf') checkExifStructure(await read(position + 8, length));
    }
    position += 12 + length;
  }
}

/** WebP (RIFF): the EXIF, XMP and ICC chunks are metadata. */
async function scanWebp(read: Read, size: number, limits: MediaLimits): Promise<void> {
  let position = 12;
  let total = 0;
  for (let parts = 0; parts < MAX_PARTS && position + 8 <= size; parts += 1) {
    const head = await read(position, 8);
    if (head.length < 8) return;
    const type = head.toString('latin1', 0, 4);
    const length = head.readUInt32LE(4);
    if (type === 'EXIF' || type === 'XMP ' || type === 'ICCP') {
      total = count(total, length, limits);
      if (type === 'EXIF') checkExifStructure(exifBlock(await read(position + 8, length)));
    }
    position += 8 + length + (length % 2);
  }
}

/**
 * Checks the metadata of a JPEG, PNG or WebP file against the limits, reading only segment
 * headers and the EXIF blocks themselves. Other formats are bounded by the pixel limit and the
 * job's time limit alone.
 */
export async function checkMetadata(path: string, mimeType: string, limits: MediaLimits): Promise<void> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const read = reader(file);
    if (mimeType === 'image/jpeg') await scanJpeg(read, limits);
    else if (mimeType === 'image/png' || mimeType === 'image/apng') await scanPng(read, size, limits);
    else if (mimeType === 'image/webp') await scanWebp(read, size, limits);
  } finally {
    await file.close();
  }
}

/** Refuses an image whose frames together hold more pixels than the limit. */
export function checkPixels(width: number, height: number, frames: number, limits: MediaLimits): void {
  const pixels = width * height * frames;
  if (pixels > limits.maxPixels) {
    throw new LimitError(
      'media_too_many_pixels',
      `The image has ${pixels} pixels (${width} x ${height}${frames > 1 ? ` x ${frames} frames` : ''}), over the ` +
        `limit of ${limits.maxPixels} (WAYPOST_MEDIA_MAX_PIXELS).`,
    );
  }
}
