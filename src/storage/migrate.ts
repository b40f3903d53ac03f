// `waypost storage migrate --to s3|local` (docs/design.md "Storage"): every object of one store
// copied to the other, each verified by reading it back from the target and comparing its
// SHA-256 with the source's (and, for an original, with the hash its name is). A journal in
// the data folder lists the keys copied and verified, so a run that is stopped and started
// again goes on where it was, and a file deleted through the new store after its copy is not
// brought back by a later run. The source is only read: the server keeps reading it meanwhile.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomToken } from '../lib/crypto.ts';
import type { BlobStore } from './store.ts';

export interface MigrateProgress {
  /** Objects (and bytes) done so far, copied or found done by an earlier run, of the total. */
  objects: number;
  totalObjects: number;
  bytes: number;
  totalBytes: number;
}

export interface MigrateResult {
  copied: number;
  /** Verified by an earlier run (in the journal). */
  skipped: number;
  /** Keys that could not be copied, with why. */
  failed: { key: string; reason: string }[];
}

export interface MigrateOptions {
  source: BlobStore;
  target: BlobStore;
  /** The journal of verified keys (kept in the data folder). */
  journal: string;
  /** A folder on this machine for a bucket's object on its way. */
  scratch: string;
  onProgress?: (progress: MigrateProgress) => void;
}

/** What is moved: media (not the temporary folder) and the import files waiting for their run. */
export function isMigrated(key: string): boolean {
  if (key.startsWith('media/')) return !key.startsWith('media/tmp/') && !key.endsWith('.part');
  return /^imports\/[^./]+$/.test(key);
}

/** An original is named after its content: `media/ab/<sha256>`. */
const namedHash = (key: string) => /^media\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(key)?.[1];

async function hashOf(stream: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}

async function journalKeys(path: string): Promise<Set<string>> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return new Set(text.split('\n').filter(Boolean));
}

/** Copies one object through a local file, verified; throws with the reason when it cannot. */
async function copyOne(options: MigrateOptions, key: string): Promise<void> {
  const { source, target } = options;
  const local = source.localPath(key);
  const path = local ?? join(options.scratch, `migrate-${randomToken(8)}.part`);
  try {
    if (local === undefined) {
      await pipeline(await source.read(key), createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    }
    const sourceHash = await hashOf(createReadStream(path));
    const named = namedHash(key);
    if (named !== undefined && named !== sourceHash) throw new Error(`its bytes do not have the SHA-256 its name is`);
    await target.upload(key, path);
    const targetHash = await hashOf((await target.read(key)) as AsyncIterable<Buffer>);
    if (targetHash !== sourceHash) {
      await target.remove(key);
      throw new Error('the copy read back does not have the SHA-256 of the original');
    }
  } finally {
    if (local === undefined) await rm(path, { force: true });
  }
}

export async function migrateStore(options: MigrateOptions): Promise<MigrateResult> {
  const done = await journalKeys(options.journal);
  const keys: { key: string; size: number }[] = [];
  for (const prefix of ['media/', 'imports/']) {
    for await (const object of options.source.list(prefix)) {
      if (isMigrated(object.key)) keys.push({ key: object.key, size: object.size });
    }
  }
  const progress: MigrateProgress = {
    objects: 0,
    totalObjects: keys.length,
    bytes: 0,
    totalBytes: keys.reduce((sum, { size }) => sum + size, 0),
  };
  const result: MigrateResult = { copied: 0, skipped: 0, failed: [] };
  options.onProgress?.({ ...progress });
  for (const { key, size } of keys) {
    if (done.has(key)) result.skipped += 1;
    else {
      try {
        await copyOne(options, key);
        await appendFile(options.journal, `${key}\n`);
        result.copied += 1;
      } catch (error) {
        // Gone from the source since the listing (a deletion): nothing to move.
        if (!(await options.source.head(key))) result.skipped += 1;
        else result.failed.push({ key, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    progress.objects += 1;
    progress.bytes += size;
    options.onProgress?.({ ...progress });
  }
  return result;
}
