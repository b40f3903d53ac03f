// Temporary files housekeeping removes (docs/housekeeping.md): the uploads of imports that
// ended (a crash between the end and the file's removal leaves one), and files in the imports
// and media temporary folders that nothing refers to and that have not been written to for
// the retention time (an upload cut off with the process, a crashed import's leftovers).
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/database.ts';
import { importFileStates } from '../imports/imports.repo.ts';
import { hashInUse } from '../media/media.repo.ts';
import { filePath, finishRetired, mediaStorage, retiredDir } from '../media/media.storage.ts';

async function removeIfOlder(path: string, before: number): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.mtimeMs >= before) return false;
  await rm(path, { force: true });
  return true;
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/**
 * `<data>/imports`: a file named after an import that still runs (queued or running) stays;
 * one of an import that ended goes at once, whatever its age; anything else (a `.part` upload
 * in flight, a file whose import was deleted) goes once it is older than `before`.
 */
export async function purgeImportFiles(db: Db, dataDir: string, before: number): Promise<number> {
  const dir = join(dataDir, 'imports');
  const files = await names(dir);
  if (files.length === 0) return 0;
  let removed = 0;
  // A batch at a time, so a folder of many files needs no query with as many parameters.
  for (let start = 0; start < files.length; start += 500) {
    const batch = files.slice(start, start + 500);
    const states = await importFileStates(db, batch);
    for (const name of batch) {
      const path = join(dir, name);
      const state = states.get(name);
      if (state === 'queued' || state === 'running') continue;
      if (state !== undefined) {
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) continue;
        await rm(path, { force: true });
        removed += 1;
      } else if (await removeIfOlder(path, before)) removed += 1;
    }
  }
  return removed;
}

/** `<data>/media/tmp`: uploads and copies being written; one not written to since `before` was abandoned. */
export async function purgeMediaTempFiles(dataDir: string, before: number): Promise<number> {
  const { tmp } = mediaStorage(dataDir);
  let removed = 0;
  for (const name of await names(tmp)) if (await removeIfOlder(join(tmp, name), before)) removed += 1;
  return removed;
}

/**
 * `<data>/media/tmp/retired`: a file a deletion moved aside and did not finish with (its process
 * stopped between the two steps; media.storage.ts, "Files shared by content"). Moved there
 * before `before` (the rename sets its change time), it is put back when a medium still has its
 * content and no file is in place, else removed. Returns how many were put back or removed.
 */
export async function finishRetiredMedia(db: Db, dataDir: string, before: number): Promise<number> {
  const storage = mediaStorage(dataDir);
  const dir = retiredDir(storage);
  let finished = 0;
  for (const name of await names(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    const sha256 = /^([0-9a-f]{64})\./.exec(name)?.[1];
    if (!info?.isFile() || info.ctimeMs >= before) continue;
    if (sha256 === undefined) await rm(path, { force: true });
    else await finishRetired(path, filePath(storage, sha256), await hashInUse(db, sha256));
    finished += 1;
  }
  return finished;
}
