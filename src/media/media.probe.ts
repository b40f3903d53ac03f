// What a file is, from its bytes (never the client's word): the type by file-type; for images
// EXIF time and GPS, size and a WebP thumbnail without metadata by the image worker
// (image-workers.ts), for video and audio all of it by ffprobe and a frame ffmpeg takes.
import { fileTypeFromFile } from 'file-type';
import { videoFrame, type MediaTools } from './media.ffmpeg.ts';
import { probeAv } from './media.ffprobe.ts';
import type { MediaJobs } from './image-workers.ts';
import { REENCODED_TYPES, THUMBNAIL_SIZE, type MediaKind, type Probe } from './media.facts.ts';

/** The sniffed type, or undefined when the bytes are not an image, video or audio. */
export async function sniff(path: string): Promise<{ kind: MediaKind; mimeType: string } | undefined> {
  const type = await fileTypeFromFile(path);
  const kind = type?.mime.split('/')[0];
  if (!type || (kind !== 'image' && kind !== 'video' && kind !== 'audio')) return undefined;
  return { kind, mimeType: type.mime };
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

/** The media type of the public copy of an image. */
export function withoutMetadataType(mimeType: string): string {
  return (REENCODED_TYPES as readonly string[]).includes(mimeType) ? mimeType : 'image/webp';
}
