// The `import` job: runs one import (imports.run.ts) in the queue, with its leases and retries,
// and records how it ended on the import when the job closes.
import { rm } from 'node:fs/promises';
import type { Database } from '../db/database.ts';
import { refreshBuckets } from '../history/stats.repo.ts';
import type { Job, JobHandler } from '../jobs/worker.ts';
import { findImportRow, finishImportRow, type ImportRow } from './imports.repo.ts';
import { MAX_ERRORS, runImport, type ImportError, type RunOptions, type RunOutcome } from './imports.run.ts';

export const IMPORT_JOB = 'import';
/** Attempts of an import job: what fails is the database or the disk, not the file. */
export const IMPORT_MAX_ATTEMPTS = 5;

export interface ImportPayload {
  import_id: string;
}

export interface ImportJobDeps {
  database: Database;
  now?: () => number;
  /** Tests: smaller batches, a hook after each. */
  batchRecords?: number;
  onBatch?: RunOptions['onBatch'];
}

/** The upload in the data folder is only needed to run the import; once it has ended, it goes. */
export async function removeOwnedFile(row: Pick<ImportRow, 'file_owned' | 'file_path'>): Promise<void> {
  if (row.file_owned === 1) await rm(row.file_path, { force: true });
}

function withError(row: ImportRow, error: ImportError): string {
  const errors = JSON.parse(row.errors) as ImportError[];
  if (errors.length < MAX_ERRORS) errors.push(error);
  return JSON.stringify(errors);
}

export function importHandler(deps: ImportJobDeps): JobHandler<RunOutcome> {
  const { database } = deps;
  return {
    async perform(job: Job): Promise<RunOutcome> {
      const { import_id: importId } = job.payload as ImportPayload;
      const outcome = await runImport(
        {
          database,
          ...(deps.now ? { now: deps.now } : {}),
          ...(deps.batchRecords ? { batchRecords: deps.batchRecords } : {}),
          ...(deps.onBatch ? { onBatch: deps.onBatch } : {}),
          renewLease: (trx) => job.renewLease(trx),
        },
        importId,
      );
      // The statistics of the new points are worked out here, not by the first request that
      // asks for them (docs/history.md "Statistics").
      const row = await findImportRow(database.db, importId);
      if (outcome === 'done' && row) await refreshBuckets(database.db, row.user_id, () => job.renewLease());
      return outcome;
    },

    async succeeded(trx, job, outcome, at) {
      if (outcome !== 'done') return;
      const row = await findImportRow(trx, (job.payload as ImportPayload).import_id);
      if (row?.status !== 'running') return;
      await finishImportRow(trx, row.id, { status: 'done', progress: 1, finished_at: at }, at);
      await removeOwnedFile(row);
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
      await removeOwnedFile(row);
    },
  };
}
