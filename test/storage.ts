// What a test reads from the configured store (src/storage/), the same on a folder and a bucket.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../src/config.ts';
import { mediaStorage, readObject, type Storage } from '../src/media/media.storage.ts';

/** The keys of the store's objects under `prefix`, sorted. */
export async function keysUnder(storage: Storage, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of storage.store.list(prefix)) keys.push(object.key);
  return keys.sort();
}

/** The bytes of an object, or undefined when there is none. */
export async function objectBytes(storage: Storage, key: string): Promise<Buffer | undefined> {
  if (!(await storage.store.head(key))) return undefined;
  return Buffer.from(await readObject(storage, key));
}

/** Every file under a folder, recursively; none when it is not there. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Every media file of an app: those in `<data>/media` (temporary ones included), and with a
 * bucket its objects under `media/` too.
 */
export async function mediaFiles(app: { config: Config }): Promise<string[]> {
  const local = filesUnder(join(app.config.dataDir, 'media'));
  const storage = mediaStorage(app.config);
  if (storage.store.kind === 'local') return local.sort();
  return [...local, ...(await keysUnder(storage, 'media/')).map((key) => `bucket:${key}`)].sort();
}

/** Every import file of an app: `<data>/imports`, and with a bucket its objects under `imports/`. */
export async function importFileNames(app: { config: Config }): Promise<string[]> {
  const dir = join(app.config.dataDir, 'imports');
  const local = existsSync(dir) ? readdirSync(dir) : [];
  const storage = mediaStorage(app.config);
  if (storage.store.kind === 'local') return local.sort();
  return [...local, ...(await keysUnder(storage, 'imports/')).map((key) => key.slice('imports/'.length))].sort();
}

/** Removes every import file of an app, local and stored. */
export async function clearImportFiles(app: { config: Config }): Promise<void> {
  const dir = join(app.config.dataDir, 'imports');
  for (const name of existsSync(dir) ? readdirSync(dir) : []) rmSync(join(dir, name));
  const storage = mediaStorage(app.config);
  for (const key of await keysUnder(storage, 'imports/')) await storage.store.remove(key);
}
