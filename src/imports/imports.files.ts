// Where an uploaded import file waits for its run (docs/imports.md "How an import runs"): in
// the configured store under `imports/<id>` (docs/design.md "Storage"), so a worker on another
// node can read it. The upload is received, and a bucket's object is read, through a local
// file in `<data>/imports`; a file named by the CLI (`waypost import FILE`) stays where it is.
import { createWriteStream, mkdirSync } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.ts';
import { randomToken } from '../lib/crypto.ts';
import { configuredStore } from '../storage/open.ts';
import type { BlobStore } from '../storage/store.ts';

export interface ImportFiles {
  store: BlobStore;
  /** `<data>/imports`: uploads being received, and local copies of a bucket's files being read. */
  dir: string;
}

export function importFiles(config: Pick<Config, 'dataDir' | 'storage'>): ImportFiles {
  const dir = join(config.dataDir, 'imports');
  mkdirSync(dir, { recursive: true });
  return { store: configuredStore(config), dir };
}

/** An import's `file_path` when its file is in the store: this mark, then the key. */
const STORED = 'storage:';

export const importKey = (id: string) => `imports/${id}`;

/** Moves a received upload into the store as import `id`'s file; returns the import's `file_path`. */
export async function storeImportFile(files: ImportFiles, id: string, path: string): Promise<string> {
  await files.store.adopt(importKey(id), path);
  return `${STORED}${importKey(id)}`;
}

/** The store's key of an import's file, or undefined for a path on this machine (the CLI's, or one stored before the store). */
export const storedKey = (filePath: string) =>
  filePath.startsWith(STORED) ? filePath.slice(STORED.length) : undefined;

/** Whether an import's file is still there. */
export async function importFilePresent(files: ImportFiles, filePath: string): Promise<boolean> {
  const key = storedKey(filePath);
  if (key === undefined) {
    return access(filePath).then(
      () => true,
      () => false,
    );
  }
  return (await files.store.head(key)) !== undefined;
}

/**
 * Runs `work` on an import's file as a path on this machine: the file itself when it is one, a
 * temporary copy of a bucket's object otherwise (a reader of a zip needs to seek), removed after.
 */
export async function withImportFile<T>(files: ImportFiles, filePath: string, work: (path: string) => Promise<T>) {
  const key = storedKey(filePath);
  if (key === undefined) return work(filePath);
  const local = files.store.localPath(key);
  if (local !== undefined) return work(local);
  const path = join(files.dir, `${key.split('/').pop()!}.${randomToken(6)}.read`);
  try {
    await pipeline(await files.store.read(key), createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    return await work(path);
  } finally {
    await rm(path, { force: true });
  }
}

/** Removes an import's own file (an upload), wherever it is; a file the CLI named is not ours. */
export async function removeImportFile(files: ImportFiles, row: { file_owned: number; file_path: string }) {
  if (row.file_owned !== 1) return;
  const key = storedKey(row.file_path);
  if (key === undefined) await rm(row.file_path, { force: true });
  else await files.store.remove(key);
}
