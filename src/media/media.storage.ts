// Media files on disk, by content hash (docs/design.md "Data model"): an upload is streamed to a
// temporary file while it is hashed, flushed to disk (fsync), then renamed to its final name,
// so a final name never holds half a file. The database row is committed after the rename.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { link, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../core/errors.ts';
import { randomToken } from '../lib/crypto.ts';

export interface Storage {
  root: string;
  tmp: string;
}

export function mediaStorage(dataDir: string): Storage {
  const root = join(dataDir, 'media');
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return { root, tmp };
}

/** The row exists but its file is gone: an operator's problem, said as such. */
export const fileUnavailable = () =>
  new AppError('file_unavailable', 'The file of this medium is not available right now.');

export const filePath = (storage: Storage, sha256: string) => join(storage.root, sha256.slice(0, 2), sha256);
export const thumbnailPath = (storage: Storage, sha256: string) => `${filePath(storage, sha256)}.webp`;
/** The copy of a medium served to everyone but its owner: the same picture or recording without metadata. */
export const publicCopyPath = (storage: Storage, sha256: string) => `${filePath(storage, sha256)}.public`;
/** An empty marker: the public copy could not be made, so it is not tried again on every read. */
export const publicCopyFailedPath = (storage: Storage, sha256: string) => `${filePath(storage, sha256)}.public-failed`;

export interface TempFile {
  path: string;
  sha256: string;
  size: number;
}

const tempName = (storage: Storage) => join(storage.tmp, `${randomToken(12)}.part`);

/**
 * fsync through a descriptor of our own: a file's data, whoever wrote it; a directory, so a
 * rename in it survives a power cut.
 */
async function sync(path: string, flags: 'r+' | 'r'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Streams into a new temporary file, hashing on the way; on any error the file is removed. */
export async function writeTemp(storage: Storage, source: Readable | AsyncIterable<Uint8Array>): Promise<TempFile> {
  const path = tempName(storage);
  const hash = createHash('sha256');
  let size = 0;
  try {
    await pipeline(
      source,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(path, { flags: 'wx', mode: 0o600 }),
    );
    await sync(path, 'r+');
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return { path, sha256: hash.digest('hex'), size };
}

/** The SHA-256 and size of a stored file, read through once. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Moves a finished temporary file to its final name; the same content already there is kept. */
export async function commitFile(tempPath: string, finalPath: string): Promise<void> {
  const dir = join(finalPath, '..');
  mkdirSync(dir, { recursive: true });
  const exists = await stat(finalPath).then(
    () => true,
    () => false,
  );
  if (exists) {
    await rm(tempPath, { force: true });
    return;
  }
  await rename(tempPath, finalPath);
  await sync(dir, 'r');
}

/** Writes bytes to a final name the same way: temp file, fsync, rename. */
export async function writeFileAtomic(storage: Storage, finalPath: string, bytes: Uint8Array): Promise<void> {
  const temp = await writeTemp(storage, Readable.from([bytes]));
  await commitFile(temp.path, finalPath);
}

/**
 * For a program that writes a file itself (ffmpeg): `write` gets a temporary name and says 'ok'
 * once the file there is complete; then the same fsync and rename. Any other answer is passed
 * back, and nothing is left behind.
 */
export async function produceFileAtomic<R extends string>(
  storage: Storage,
  finalPath: string,
  write: (tempPath: string) => Promise<R | 'ok'>,
): Promise<R | 'ok'> {
  const path = tempName(storage);
  try {
    const result = await write(path);
    if (result === 'ok') {
      await sync(path, 'r+');
      await commitFile(path, finalPath);
    }
    return result;
  } finally {
    await rm(path, { force: true });
  }
}

// Files shared by content (docs/data-ownership.md "Deleting one item"): a file goes when the
// last medium with its content goes, while an upload of the same content may be adding a
// medium in another request or process. The two sides follow one protocol, so a committed row
// never lacks its file:
//
// - The upload places its temporary file (`placeShared`: linked in when no file is there, and
//   kept under its temporary name too), commits its row, then settles (`settleShared`): if the
//   file is gone by then, its own copy takes its place; the temporary name goes either way.
// - The deletion first moves the file aside (`retireShared`, a rename into `tmp/retired/`),
//   then looks for a medium with the content: if there is one, the file goes back (unless an
//   upload put its copy there meanwhile); else it is removed, with its thumbnail and public copy.
//
// If the deletion's look comes before the upload's commit, the file was moved aside before the
// upload settles, and the upload puts its copy back; if it comes after, the deletion sees the
// row and puts the file back. A process that stops between the two steps leaves the file in
// `tmp/retired/`, where housekeeping puts it back or removes it by the same rule.

/** Where files wait between being moved aside and removed (or put back). */
export const retiredDir = (storage: Storage) => join(storage.tmp, 'retired');

/**
 * Gives a finished temporary file its final name when none is there, as a second name (a hard
 * link), so the upload keeps its copy until `settleShared` whatever a deletion does meanwhile.
 */
export async function placeShared(tempPath: string, finalPath: string): Promise<'placed' | 'present'> {
  const dir = join(finalPath, '..');
  mkdirSync(dir, { recursive: true });
  try {
    await link(tempPath, finalPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'present';
    throw error;
  }
  await sync(dir, 'r');
  return 'placed';
}

/** After the row is committed: the file is in place (the kept copy fills a gap), and no temporary file is left. */
export async function settleShared(tempPath: string, finalPath: string): Promise<void> {
  const present = await stat(finalPath).then(
    () => true,
    () => false,
  );
  if (!present) {
    await rename(tempPath, finalPath);
    await sync(join(finalPath, '..'), 'r');
  }
  await rm(tempPath, { force: true });
}

/** Moves a file aside before the check for a medium with its content; the new path, or undefined when none was there. */
export async function retireShared(storage: Storage, finalPath: string): Promise<string | undefined> {
  const dir = retiredDir(storage);
  mkdirSync(dir, { recursive: true });
  const aside = join(dir, `${finalPath.split(/[\\/]/).pop()!}.${randomToken(6)}`);
  try {
    await rename(finalPath, aside);
    return aside;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Ends a retirement: the file back in place when its content is still used (and nothing filled the gap), else gone. */
export async function finishRetired(aside: string | undefined, finalPath: string, inUse: boolean): Promise<void> {
  if (aside === undefined) return;
  if (inUse) {
    const present = await stat(finalPath).then(
      () => true,
      () => false,
    );
    if (!present) {
      await rename(aside, finalPath);
      await sync(join(finalPath, '..'), 'r');
      return;
    }
  }
  await rm(aside, { force: true });
}
