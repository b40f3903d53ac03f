// Media files by content hash (docs/design.md "Data model" and "Storage"): an upload is streamed
// to a local temporary file while it is hashed and flushed to disk (fsync), probed there, then
// stored under its final key in the configured store (a folder or a bucket), so a final key
// never holds half a file. The database row is committed after the file is stored.
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { randomToken } from '../lib/crypto.ts';
import { syncPath } from '../storage/local.ts';
import { configuredStore } from '../storage/open.ts';
import { MissingObject, type BlobStore } from '../storage/store.ts';

export interface Storage {
  /** Where finished files are kept. */
  store: BlobStore;
  /** A folder on this machine for files being received or made (`<data>/media/tmp`). */
  tmp: string;
}

export function mediaStorage(config: Pick<Config, 'dataDir' | 'storage'>): Storage {
  const tmp = join(config.dataDir, 'media', 'tmp');
  mkdirSync(tmp, { recursive: true });
  return { store: configuredStore(config), tmp };
}

/** The row exists but its file is gone: an operator's problem, said as such. */
export const fileUnavailable = () =>
  new AppError('file_unavailable', 'The file of this medium is not available right now.');

export const fileKey = (sha256: string) => `media/${sha256.slice(0, 2)}/${sha256}`;
export const thumbnailKey = (sha256: string) => `${fileKey(sha256)}.webp`;
/** The copy of a medium served to everyone but its owner: the same picture or recording without metadata. */
export const publicCopyKey = (sha256: string) => `${fileKey(sha256)}.public`;
/** An empty marker: the public copy could not be made, so it is not tried again on every read. */
export const publicCopyFailedKey = (sha256: string) => `${fileKey(sha256)}.public-failed`;

export interface TempFile {
  path: string;
  sha256: string;
  size: number;
}

export const tempName = (storage: Storage) => join(storage.tmp, `${randomToken(12)}.part`);

/** Passes chunks on while hashing them. */
function hashing(hash: ReturnType<typeof createHash>, counted: { size: number }) {
  return async function* (chunks: AsyncIterable<Uint8Array>) {
    for await (const chunk of chunks) {
      hash.update(chunk);
      counted.size += chunk.length;
      yield chunk;
    }
  };
}

/** Streams into a new temporary file, hashing on the way; on any error the file is removed. */
export async function writeTemp(storage: Storage, source: Readable | AsyncIterable<Uint8Array>): Promise<TempFile> {
  const path = tempName(storage);
  const hash = createHash('sha256');
  const counted = { size: 0 };
  try {
    await pipeline(source, hashing(hash, counted), createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    await syncPath(path, 'r+');
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return { path, sha256: hash.digest('hex'), size: counted.size };
}

/** The SHA-256 and size of a stored object, read through once. */
export async function hashObject(store: BlobStore, key: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of (await store.read(key)) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Whether the store has an object under `key`. */
export const stored = async (storage: Storage, key: string) => (await storage.store.head(key)) !== undefined;

/** A stored object's bytes, whole: for the small files (a public image going out with a post). */
export async function readObject(storage: Storage, key: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await storage.store.read(key)) as AsyncIterable<Buffer>) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * Runs `work` on a stored object as a file on this machine: the file itself in a folder store,
 * else a temporary copy, removed afterwards. A missing object is `fileUnavailable`.
 */
export async function withLocalCopy<T>(storage: Storage, key: string, work: (path: string) => Promise<T>): Promise<T> {
  const local = storage.store.localPath(key);
  if (local !== undefined) return work(local);
  const path = tempName(storage);
  try {
    const body = await storage.store.read(key).catch((error: unknown) => {
      throw error instanceof MissingObject ? fileUnavailable() : error;
    });
    await pipeline(body, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    return await work(path);
  } finally {
    await rm(path, { force: true });
  }
}

/** Stores a finished temporary file under `key`; the same content already there is kept. The temporary file goes. */
export async function commitFile(storage: Storage, tempPath: string, key: string): Promise<void> {
  await storage.store.adopt(key, tempPath);
}

/** Writes bytes under a key the same way: temporary file, fsync, then stored. The temporary file goes, stored or not. */
export async function writeFileAtomic(storage: Storage, key: string, bytes: Uint8Array): Promise<void> {
  const temp = await writeTemp(storage, Readable.from([bytes]));
  try {
    await commitFile(storage, temp.path, key);
  } finally {
    await rm(temp.path, { force: true });
  }
}

/**
 * For a program that writes a file itself (ffmpeg): `write` gets a temporary name and says 'ok'
 * once the file there is complete; then the same fsync and store. Any other answer is passed
 * back, and nothing is left behind.
 */
export async function produceFileAtomic<R extends string>(
  storage: Storage,
  key: string,
  write: (tempPath: string) => Promise<R | 'ok'>,
): Promise<R | 'ok'> {
  const path = tempName(storage);
  try {
    const result = await write(path);
    if (result === 'ok') {
      await syncPath(path, 'r+');
      await commitFile(storage, path, key);
    }
    return result;
  } finally {
    await rm(path, { force: true });
  }
}

// Files shared by content (docs/data-ownership.md "Deleting one item"): a file goes when the
// last medium with its content goes, while an upload of the same content may be adding a
// medium in another request or process (or on another node, with a bucket). The two sides
// follow one protocol, so a committed row never lacks its file:
//
// - The upload places its temporary file (`placeShared`: stored under the key when nothing is
//   there, and kept under its temporary name too), commits its row, then settles
//   (`settleShared`): if the object is gone by then, its own copy takes its place; the
//   temporary file goes either way.
// - The deletion first moves the object aside (`retireShared`: a rename into
//   `media/tmp/retired/`, a copy and delete in a bucket), then looks for a medium with the
//   content: if there is one, the object goes back (unless an upload put its copy there
//   meanwhile); else it is removed, with its thumbnail and public copy.
//
// If the deletion's look comes before the upload's commit, the object was moved aside before
// the upload settles, and the upload puts its copy back; if it comes after, the deletion sees
// the row and puts the object back. A process that stops between the two steps leaves the
// object under `media/tmp/retired/`, where housekeeping puts it back or removes it by the same rule.

/** The key prefix under which objects wait between being moved aside and removed (or put back). */
export const RETIRED_PREFIX = 'media/tmp/retired/';

/**
 * Stores a finished temporary file under its final key when none is there, while the upload
 * keeps its copy until `settleShared` whatever a deletion does meanwhile.
 */
export function placeShared(storage: Storage, tempPath: string, key: string): Promise<'placed' | 'present'> {
  return storage.store.place(key, tempPath);
}

/** After the row is committed: the object is in place (the kept copy fills a gap), and no temporary file is left. */
export async function settleShared(storage: Storage, tempPath: string, key: string): Promise<void> {
  await storage.store.adopt(key, tempPath);
  await rm(tempPath, { force: true });
}

/** Moves an object aside before the check for a medium with its content; the new key, or undefined when none was there. */
export async function retireShared(storage: Storage, key: string): Promise<string | undefined> {
  const aside = `${RETIRED_PREFIX}${key.split('/').pop()!}.${randomToken(6)}`;
  return (await storage.store.move(key, aside)) ? aside : undefined;
}

/** Ends a retirement: the object back in place when its content is still used (and nothing filled the gap), else gone. */
export async function finishRetired(
  storage: Storage,
  aside: string | undefined,
  key: string,
  inUse: boolean,
): Promise<void> {
  if (aside === undefined) return;
  if (inUse && !(await stored(storage, key))) {
    await storage.store.move(aside, key);
    return;
  }
  await storage.store.remove(aside);
}
