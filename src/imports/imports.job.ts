// The `import` job: runs one import (imports.run.ts) in the queue, with its leases and retries,
// and records how it ended on the import when the job closes.
import type { Database, Db } from '../db/database.ts';
import { refreshHistory } from '../history/refresh.ts';
import type { Job, JobHandler } from '../jobs/worker.ts';
import { removeImportFile, type ImportFiles } from './imports.files.ts';
import { runInChild, WorkerDied, type IsolateOptions } from './imports.fork.ts';
import { countWorkerDeath, findImportRow, finishImportRow, type ImportRow } from './imports.repo.ts';
import { MAX_ERRORS, runImport, type ImportError, type RunOptions, type RunOutcome } from './imports.run.ts';

export const IMPORT_JOB = 'import';
/** Attempts of an import job: what fails is the database or the disk, not the file. */
export const IMPORT_MAX_ATTEMPTS = 5;
/** Deaths of its child process after which an import is failed for good: the file is poison. */
export const IMPORT_MAX_WORKER_DEATHS = 2;

export interface ImportPayload {
  import_id: string;
}

export interface ImportJobDeps {
  database: Database;
  /** Where uploaded files are (imports.files.ts). */
  files: ImportFiles;
  now?: () => number;
  /** Tests: smaller batches, a hook after each. */
  batchRecords?: number | undefined;
  onBatch?: RunOptions['onBatch'];
  restore?: RunOptions['restore'];
  /**
   * Runs each import in a child process of its own (imports.fork.ts), as the server and
   * `waypost worker` do; without it the import runs in this process (`waypost import`, tests).
   */
  isolate?: IsolateOptions | undefined;
}

function withError(row: ImportRow, error: ImportError): string {
  const errors = JSON.parse(row.errors) as ImportError[];
  if (errors.length < MAX_ERRORS) errors.push(error);
  return JSON.stringify(errors);
}

/**
 * The import and then the statistics of its new points, in whichever process runs it (this one,
 * or the child of src/import-worker.ts). `renewLease` keeps the job's lease, in a transaction when given one.
 */
export async function performImport(
  deps: Omit<ImportJobDeps, 'isolate'>,
  importId: string,
  renewLease: (trx?: Db) => Promise<boolean>,
): Promise<RunOutcome> {
  const { database } = deps;
  const outcome = await runImport(
    {
      database,
      files: deps.files,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.batchRecords ? { batchRecords: deps.batchRecords } : {}),
      ...(deps.onBatch ? { onBatch: deps.onBatch } : {}),
      ...(deps.restore ? { restore: deps.restore } : {}),
      renewLease: (trx) => renewLease(trx),
    },
    importId,
  );
  // The statistics, visits and trips of the new points are worked out here, not by the first
  // request that asks for them (docs/history.md "Statistics").
  const row = await findImportRow(database.db, importId);
  if (outcome === 'done' && row) {
    await refreshHistory(database.db, row.user_id, (deps.now ?? Date.now)(), () => renewLease());
  }
  return outcome;
}

export function importHandler(deps: ImportJobDeps): JobHandler<RunOutcome> {
  const { database } = deps;
  return {
    async perform(job: Job): Promise<RunOutcome> {
      const { import_id: importId } = job.payload as ImportPayload;
      if (!deps.isolate) return performImport(deps, importId, (trx) => job.renewLease(trx));
      try {
        return await runInChild(deps.isolate, job, importId, {
          batchRecords: deps.batchRecords,
          onBatch: deps.onBatch,
        });
      } catch (error) {
        if (!(error instanceof WorkerDied)) throw error;
        // Counted on the import, so a restart of the server does not give the file new lives.
        const deaths = await countWorkerDeath(database.db, importId, (deps.now ?? Date.now)());
        const poison = deaths >= IMPORT_MAX_WORKER_DEATHS;
        const message = poison
          ? `import_worker_died: the import worker ${error.message}, ${deaths} times on this file; it is not tried again`
          : `import_worker_died: the import worker ${error.message}`;
        throw Object.assign(new Error(message), { permanent: poison });
      }
    },

    async succeeded(trx, job, outcome, at) {
      if (outcome !== 'done') return;
      const row = await findImportRow(trx, (job.payload as ImportPayload).import_id);
      if (row?.status !== 'running') return;
      await finishImportRow(trx, row.id, { status: 'done', progress: 1, finished_at: at }, at);
      // The upload is only needed to run the import; once it has ended, it goes.
      await removeImportFile(deps.files, row);
    },

    async failed(trx, job, error, final, at) {
      const row = await findImportRow(trx, (job.payload as ImportPayload).import_id);
      if (!row || (row.status !== 'running' && row.status !== 'queued')) return;
      if (!final) {
        await finishImportRow(trx, row.id, { status: 'queued' }, at);
        return;
      }
      const errors = withError(row, { where: row.filename, message: `the import stopped: ${error}` });
      await finishImportRow(trx, row.id, { status: 'failed', errors, finished_at: at }, at);
      await removeImportFile(deps.files, row);
    },
  };
}
