// `waypost import --user <name> <file>...`: the same import as POST /imports, run here and now
// for files on the server. Each import is queued as a job held by this process, so a command
// that is stopped leaves a job the server's worker takes up when its lease runs out (if it can
// read the file). The operator's files are read where they are and never deleted.
import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { importFiles, type ImportFiles } from '../imports/imports.files.ts';
import type { Database } from '../db/database.ts';
import { IMPORT_JOB, IMPORT_MAX_ATTEMPTS, importHandler, type ImportPayload } from '../imports/imports.job.ts';
import { createImport, getImport } from '../imports/imports.logic.ts';
import type { ImportRow } from '../imports/imports.repo.ts';
import type { RestoreDeps } from '../archive/restore/restore.phase.ts';
import { lazyMedia, restoreDeps } from '../job-runner.ts';
import { extendLease, finishJob } from '../jobs/jobs.repo.ts';
import type { Job } from '../jobs/worker.ts';
import { newId } from '../lib/ids.ts';
import { getUser } from '../users/users.logic.ts';
import { UsageError, type Output } from './output.ts';
import type { Import } from '../imports/imports.schemas.ts';

const USAGE = `usage:
  waypost import --user <username> [--format FORMAT] [--scope public|private] <file>...
                 imports location history files, or restores a Waypost export, on this server
                 (formats: docs/imports.md)`;

export interface ImportCommandOptions {
  /** Where the progress line goes, when it is a terminal. */
  progress?: NodeJS.WriteStream | undefined;
}

function summary(name: string, i: Import): string {
  // A restore also says what came back of each kind of object.
  const items = i.items
    ? Object.entries(i.items)
        .map(([kind, n]) => `${n.stored} ${kind.replaceAll('_', ' ')}`)
        .join(', ') + ', '
    : '';
  return (
    `${name}: ${i.status}, ${i.format}, ${items}${i.points_stored} points stored, ${i.duplicates} duplicates, ` +
    `${i.skipped} skipped, ${i.errors.length} errors (import ${i.id})`
  );
}

function progressLine(name: string, row: ImportRow): string {
  const percent = Math.floor(row.progress * 100);
  return `\r${name}: ${String(percent).padStart(3)}%  ${row.points_seen} points, ${row.points_stored} stored, ${row.duplicates} duplicates, ${row.skipped} skipped`;
}

/** Runs one held import job to its end, as the worker would; its outcome is on the import. */
async function runHeld(
  database: Database,
  job: Job,
  holder: { id: string; workerId: string },
  onBatch: (row: ImportRow) => void,
  restore: RestoreDeps,
  files: ImportFiles,
): Promise<void> {
  const handler = importHandler({ database, files, onBatch, restore });
  try {
    const outcome = await handler.perform(job);
    await database.db.transaction().execute(async (trx) => {
      const at = Date.now();
      if (await finishJob(trx, holder, 'done', null, at)) await handler.succeeded(trx, job, outcome, at);
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await database.db.transaction().execute(async (trx) => {
      const at = Date.now();
      if (await finishJob(trx, holder, 'failed', message, at)) await handler.failed(trx, job, message, true, at);
    });
  }
}

/** Returns false when an import failed. */
export async function importCommand(
  database: Database,
  config: Config,
  args: string[],
  out: Output,
  options: ImportCommandOptions = {},
): Promise<boolean> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { user: { type: 'string' }, format: { type: 'string' }, scope: { type: 'string' } },
  });
  if (!values.user || positionals.length === 0) throw new UsageError(USAGE);
  const user = await getUser(database.db, values.user);
  const workerId = `cli:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leaseMs = config.jobLeaseSeconds * 1000;
  let ok = true;
  const media = lazyMedia(config);
  try {
    for (const file of positionals) {
      const name = basename(file);
      const jobId = newId();
      const created = await createImport(
        database.db,
        {
          userId: user.id,
          path: resolve(file),
          owned: false,
          filename: name,
          format: values.format,
          scope: values.scope,
        },
        { files: importFiles(config), now: Date.now(), heldBy: { jobId, workerId, leaseMs } },
      );
      const payload: ImportPayload = { import_id: created.id };
      const job: Job = {
        id: jobId,
        workerId,
        kind: IMPORT_JOB,
        ref: created.id,
        payload,
        attempt: 1,
        maxAttempts: IMPORT_MAX_ATTEMPTS,
        renewLease: (trx = database.db) => extendLease(trx, { id: jobId, workerId }, Date.now() + leaseMs, Date.now()),
      };
      const tty = options.progress;
      await runHeld(
        database,
        job,
        { id: jobId, workerId },
        (row) => tty?.write(progressLine(name, row)),
        restoreDeps(config, media),
        importFiles(config),
      );
      if (tty) tty.write('\r\x1b[K');
      const done = await getImport(database.db, user.id, created.id);
      out.print(summary(name, done));
      for (const error of done.errors.slice(0, 10)) out.info(`  ${error.where}: ${error.message}`);
      if (done.errors.length > 10) out.info(`  ... (GET /imports/${done.id} lists up to 100)`);
      if (done.status !== 'done') ok = false;
    }
  } finally {
    media.close();
  }
  return ok;
}
