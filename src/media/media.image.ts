// The image work itself (exifr and sharp), run only inside the image worker (media.worker.ts),
// never in the server process: the limits first, then EXIF time and GPS, the size as displayed
// and the thumbnail; or the public copy without metadata.
import { writeFile } from 'node:fs/promises';
import exifr from 'exifr';
import sharp, { type Sharp } from 'sharp';
import { checkMetadata, checkPixels, type MediaLimits } from './media.limits.ts';
import { exifTimeMs, THUMBNAIL_SIZE, type Fitted, type ImageFacts, type REENCODED_TYPES } from './media.facts.ts';

/**
 * exifr reads a bounded prefix of the file (a 64 KiB first chunk and at most two more), only
 * the blocks that hold time and place, and no segment spread over several (multiSegment off).
 */
const EXIFR_OPTIONS = {
  reviveValues: false,
  chunked: true,
  firstChunkSize: 65_536,
  chunkSize: 65_536,
  chunkLimit: 2,
  multiSegment: false,
  tiff: true,
  exif: true,
  gps: true,
  ifd1: false,
  interop: false,
  makerNote: false,
  userComment: false,
  xmp: false,
  icc: false,
  iptc: false,
  jfif: false,
  ihdr: false,
};

async function readExif(path: string, timeZone: string): Promise<Pick<ImageFacts, 'takenMs' | 'location'>> {
  try {
    const exif = (await exifr.parse(path, EXIFR_OPTIONS)) as Record<string, unknown> | undefined;
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

/** sharp, with its own pixel limit set to ours (it then refuses to decode anything larger). */
const open = (input: string | Buffer, limits: MediaLimits, animated = false) =>
  sharp(input, { limitInputPixels: limits.maxPixels, animated });

/**
 * A WebP thumbnail at most 320 px on a side, turned upright. sharp writes no metadata unless
 * asked (no EXIF, no GPS), so a thumbnail never carries where the photo was taken.
 */
export async function thumbnail(input: string | Buffer, limits: MediaLimits): Promise<Buffer | undefined> {
  try {
    return await open(input, limits)
      .rotate()
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  } catch {
    return undefined; // a format sharp cannot decode (some RAW, HEIC): no thumbnail
  }
}

/**
 * What an uploaded image is, after the limits: a LimitError for a file over one. Dimensions
 * come from the header (sharp reads no pixels for them); the thumbnail decodes, within the
 * pixel limit.
 */
export async function inspectImage(
  path: string,
  mimeType: string,
  timeZone: string,
  limits: MediaLimits,
): Promise<ImageFacts & { thumbnail: Buffer | undefined }> {
  await checkMetadata(path, mimeType, limits);
  // The header alone, without sharp's own limit, so a file over ours is refused by name.
  const meta = await sharp(path, { limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (meta) checkPixels(meta.width, meta.pageHeight ?? meta.height, meta.pages ?? 1, limits);
  const exif = await readExif(path, timeZone);
  // As displayed: EXIF orientation 5 to 8 swaps width and height.
  const size = meta ? { width: meta.autoOrient.width, height: meta.autoOrient.height } : { width: null, height: null };
  return { ...exif, ...size, thumbnail: meta ? await thumbnail(path, limits) : undefined };
}

/** The formats sharp writes back as they came; anything else becomes WebP. */
const REENCODE: Record<(typeof REENCODED_TYPES)[number], (image: Sharp) => Sharp> = {
  'image/jpeg': (image) => image.jpeg({ quality: 92 }),
  'image/png': (image) => image.png(),
  'image/webp': (image) => image.webp({ quality: 92 }),
  'image/gif': (image) => image.gif(),
  'image/avif': (image) => image.avif(),
  'image/tiff': (image) => image.tiff(),
};

/**
 * Writes the picture without its metadata (EXIF, XMP, IPTC: camera, time and exact GPS) to
 * `target`, turned upright first because the orientation tag goes too. 'failed' when sharp
 * cannot read the file or it is over a limit.
 */
export async function withoutMetadata(
  path: string,
  mimeType: string,
  target: string,
  limits: MediaLimits,
): Promise<'ok' | 'failed'> {
  try {
    await checkMetadata(path, mimeType, limits);
    const image = open(path, limits, true).rotate();
    const encode = REENCODE[mimeType as keyof typeof REENCODE] ?? ((upright: Sharp) => upright.webp({ quality: 92 }));
    await encode(image).toFile(target);
    return 'ok';
  } catch {
    return 'failed';
  }
}

/**
 * Writes `path` (a public copy, already without metadata) to `target` as a JPEG of at most
 * `maxBytes`: first at its size, then smaller and at lower quality until it fits. A picture
 * that cannot fit even at 256 px is 'failed'. The first frame of an animation only.
 */
export async function fitWithin(
  path: string,
  target: string,
  maxBytes: number,
  maxSide: number,
  limits: MediaLimits,
): Promise<Fitted | 'failed'> {
  try {
    for (
      let side = maxSide, quality = 85;
      side >= 256;
      side = Math.floor(side * 0.75), quality = Math.max(60, quality - 10)
    ) {
      const { data, info } = await open(path, limits)
        .resize(side, side, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality, mozjpeg: true })
        .toBuffer({ resolveWithObject: true });
      if (data.byteLength <= maxBytes) {
        await writeFile(target, data);
        return { width: info.width, height: info.height, size: data.byteLength };
      }
    }
    return 'failed';
  } catch {
    return 'failed';
  }
}
