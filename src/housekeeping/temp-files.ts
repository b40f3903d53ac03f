// Temporary files housekeeping removes (docs/housekeeping.md): the uploads of imports that
// ended (a crash between the end and the file's removal leaves one), and files in the imports
// and media temporary folders that nothing refers to and that have not been written to for
// the retention time (an upload cut off with the process, a crashed import's leftovers). With
// a bucket (docs/design.md "Storage"), its `imports/` objects follow the same rules.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/database.ts';
import { importFileStates } from '../imports/imports.repo.ts';
import { hashInUse } from '../media/media.repo.ts';
import type { Config } from '../config.ts';
import { importFiles } from '../imports/imports.files.ts';
import { fileKey, finishRetired, mediaStorage, RETIRED_PREFIX } from '../media/media.storage.ts';

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
export async function purgeImportFiles(db: Db, config: StoreConfig, before: number): Promise<number> {
  const { store, dir } = importFiles(config);
  const files = await names(dir);
  let removed = store.kind === 'local' ? 0 : await purgeStoredImports(db, config, before);
  if (files.length === 0) return removed;
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

/** A bucket's `imports/` objects, by the same rules as the folder's files (the object's last write for its age). */
async function purgeStoredImports(db: Db, config: StoreConfig, before: number): Promise<number> {
  const { store } = importFiles(config);
  const objects: { key: string; id: string; modifiedMs: number }[] = [];
  for await (const object of store.list('imports/'))
    objects.push({ ...object, id: object.key.slice('imports/'.length) });
  let removed = 0;
  for (let start = 0; start < objects.length; start += 500) {
    const batch = objects.slice(start, start + 500);
    const states = await importFileStates(
      db,
      batch.map((object) => object.id),
    );
    for (const object of batch) {
      const state = states.get(object.id);
      if (state === 'queued' || state === 'running') continue;
      if (state === undefined && object.modifiedMs >= before) continue;
      await store.remove(object.key);
      removed += 1;
    }
  }
  return removed;
}

/** `<data>/media/tmp`: uploads and copies being written; one not written to since `before` was abandoned. */
export async function purgeMediaTempFiles(dataDir: string, before: number): Promise<number> {
  const tmp = join(dataDir, 'media', 'tmp');
  let removed = 0;
  for (const name of await names(tmp)) if (await removeIfOlder(join(tmp, name), before)) removed += 1;
  return removed;
}

/**
 * `media/tmp/retired/` in the store: a file a deletion moved aside and did not finish with (its
 * process stopped between the two steps; media.storage.ts, "Files shared by content"). Moved
 * there before `before` (a rename sets a file's change time, a copy an object's last write),
 * it is put back when a medium still has its content and no file is in place, else removed.
 * Returns how many were put back or removed.
 */
export async function finishRetiredMedia(db: Db, config: StoreConfig, before: number): Promise<number> {
  const storage = mediaStorage(config);
  const retired = [];
  for await (const object of storage.store.list(RETIRED_PREFIX)) retired.push(object);
  let finished = 0;
  for (const object of retired) {
    const name = object.key.slice(RETIRED_PREFIX.length);
    const sha256 = /^([0-9a-f]{64})\./.exec(name)?.[1];
    if (name.includes('/') || object.modifiedMs >= before) continue;
    if (sha256 === undefined) await storage.store.remove(object.key);
    else await finishRetired(storage, object.key, fileKey(sha256), await hashInUse(db, sha256));
    finished += 1;
  }
  return finished;
}

type StoreConfig = Pick<Config, 'dataDir' | 'storage'>;
