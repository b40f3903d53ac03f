// `waypost storage migrate --to s3|local`: the files of the data folder copied to the bucket
// the WAYPOST_S3_* settings name, or back (src/storage/migrate.ts, docs/design.md "Storage").
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig, type Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { migrateStore, type MigrateProgress } from '../storage/migrate.ts';
import { storeFor } from '../storage/open.ts';
import { UsageError, type Output } from './output.ts';

const USAGE = `usage:
  waypost storage migrate --to s3      copy the data folder's files to the bucket of the WAYPOST_S3_* settings
  waypost storage migrate --to local   copy the bucket's files to the data folder

Each file is verified by its SHA-256 after the copy; a run stopped half-way goes on where it
was when started again. The source is left as it is; set WAYPOST_STORAGE to the new store and
restart, then run the command once more for files written meanwhile (see the README).`;

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** A progress bar redrawn in place on a terminal, a line per tenth elsewhere. */
function progressBar(out: Output, tty: NodeJS.WriteStream | undefined) {
  let lastTenth = -1;
  let lastDraw = 0;
  return (p: MigrateProgress) => {
    const share = p.totalBytes === 0 ? 1 : p.bytes / p.totalBytes;
    const text = `${p.objects} of ${p.totalObjects} files, ${mib(p.bytes)} of ${mib(p.totalBytes)} MiB`;
    if (tty) {
      const now = Date.now();
      if (now - lastDraw < 100 && p.objects < p.totalObjects) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round(share * width);
      tty.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
      if (p.objects === p.totalObjects) tty.write('\n');
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth === lastTenth && p.objects < p.totalObjects) return;
    lastTenth = tenth;
    out.info(`${Math.floor(share * 100)} %: ${text}`);
  };
}

/**
 * Import uploads stored before the store named their file by its path in the data folder:
 * named by key from now on, so a worker on any node finds them in either store.
 */
async function renameImportFiles(db: Db, dataDir: string): Promise<void> {
  const prefix = join(dataDir, 'imports', '');
  await db
    .updateTable('imports')
    .set({ file_path: sql<string>`'storage:imports/' || id` })
    .where('file_owned', '=', 1)
    .where(sql<boolean>`file_path = ${prefix} || id`)
    .execute();
}

export async function storageCommand(
  db: Db,
  config: Config,
  args: string[],
  out: Output,
  env: NodeJS.ProcessEnv = process.env,
  tty: NodeJS.WriteStream | undefined = process.stderr.isTTY ? process.stderr : undefined,
): Promise<boolean> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { to: { type: 'string' } } });
  const to = values.to;
  if (positionals[0] !== 'migrate' || positionals.length !== 1 || (to !== 's3' && to !== 'local')) {
    throw new UsageError(USAGE);
  }
  // The bucket's settings, whichever store is configured now.
  const bucket = loadConfig({ ...env, WAYPOST_STORAGE: 's3' }).storage;
  const local = storeFor(config.dataDir, { kind: 'local' });
  const remote = storeFor(config.dataDir, bucket);
  const [source, target] = to === 's3' ? [local, remote] : [remote, local];
  await renameImportFiles(db, config.dataDir);
  const scratch = join(config.dataDir, 'media', 'tmp');
  mkdirSync(scratch, { recursive: true });
  const result = await migrateStore({
    source,
    target,
    journal: join(config.dataDir, `storage-migrate-to-${to}.journal`),
    scratch,
    onProgress: progressBar(out, tty),
  });
  out.print(`${result.copied} copied and verified, ${result.skipped} done before, ${result.failed.length} failed`);
  for (const { key, reason } of result.failed) out.info(`${key}: ${reason}`);
  if (config.storage.kind !== to) {
    out.info(`Now set WAYPOST_STORAGE=${to}, restart, and run this once more for files written meanwhile.`);
  }
  return result.failed.length === 0;
}
