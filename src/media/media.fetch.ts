// An image brought in from outside (a feed entry's picture, a status's attachment): fetched
// through the outbound guard, at most `maxBytes`, judged by its bytes like an upload (an image
// or nothing), inspected and given a thumbnail by the image worker under the same limits, and
// stored by content hash. The row is the caller's to write, in the transaction that stores
// the post it belongs to.
import { rm } from 'node:fs/promises';
import type { Outbound } from '../lib/ssrf.ts';
import type { MediaJobs } from './image-workers.ts';
import { sniff } from './media.probe.ts';
import { commitFile, fileKey, thumbnailKey, writeFileAtomic, writeTemp, type Storage } from './media.storage.ts';

export interface FetchedImage {
  sha256: string;
  size: number;
  mimeType: string;
  width: number | null;
  height: number | null;
  takenMs: number | null;
  location: { lat: number; lon: number } | null;
  hasThumbnail: boolean;
}

export interface FetchDeps {
  outbound: Outbound;
  storage: Storage;
  jobs: MediaJobs;
}

async function* capped(body: AsyncIterable<Uint8Array>, maxBytes: number): AsyncIterable<Uint8Array> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new Error(`the image is over ${maxBytes} bytes`);
    yield chunk;
  }
}

/** Fetches and stores one image; throws (with a reason) when it cannot be had. */
export async function fetchImage(
  deps: FetchDeps,
  url: string,
  maxBytes: number,
  timeZone: string,
): Promise<FetchedImage> {
  const response = await deps.outbound.request(url, { method: 'GET', headers: { accept: 'image/*' } });
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status} from ${new URL(url).origin}`);
  }
  if (Number(response.headers.get('content-length') ?? NaN) > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw new Error(`the image is over ${maxBytes} bytes`);
  }
  const temp = await writeTemp(deps.storage, capped(response.body as AsyncIterable<Uint8Array>, maxBytes));
  try {
    const sniffed = await sniff(temp.path);
    if (sniffed?.kind !== 'image') throw new Error('not an image (judged by its bytes)');
    const { thumbnail, ...facts } = await deps.jobs.run({
      op: 'inspect',
      path: temp.path,
      mimeType: sniffed.mimeType,
      timeZone,
    });
    await commitFile(deps.storage, temp.path, fileKey(temp.sha256));
    if (thumbnail) await writeFileAtomic(deps.storage, thumbnailKey(temp.sha256), thumbnail);
    return { sha256: temp.sha256, size: temp.size, mimeType: sniffed.mimeType, ...facts, hasThumbnail: !!thumbnail };
  } finally {
    await rm(temp.path, { force: true });
  }
}
