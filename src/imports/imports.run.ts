// Running one import: the file read as a stream by its format's reader, points stored in
// batches, each batch committed together with the import's counters and a checkpoint (how many
// records are done). A run that stops anywhere (a killed worker, a lost lease) is restarted by
// the queue: it skips the checkpointed records and goes on, and the unique index on
// (user_id, time, lat, lon) keeps any point from being stored twice. Between batches the run
// checks that the import is still running (DELETE cancels it) and keeps its job's lease.
import { EXPORT_FORMAT } from '../archive/format.ts';
import type { RestoreDeps } from '../archive/restore/restore.phase.ts';
import { runRestore } from '../archive/restore/restore.run.ts';
import type { Database, Db } from '../db/database.ts';
import { newIds } from '../lib/ids.ts';
import { findImportRow, insertImportedPoints, saveProgress, startImportRow, type ImportRow } from './imports.repo.ts';
import { importFilePresent, withImportFile, type ImportFiles } from './imports.files.ts';
import { isFormat } from './readers/formats.ts';
import { readBatches, type ReadBatch, type ReadError } from './reading.ts';

/** Errors kept on an import (the first ones). */
export const MAX_ERRORS = 100;
/** Records per committed batch. */
export const BATCH_RECORDS = 2000;
/** Objects per committed batch of a restore (posts and points; media go 50 at a time). */
const RESTORE_BATCH_RECORDS = 1000;

/** A problem with the file, kept on the import (docs/imports.md). */
export type ImportError = ReadError;

export interface RunOptions {
  database: Database;
  /** Where uploaded files are (imports.files.ts). */
  files: ImportFiles;
  now?: () => number;
  batchRecords?: number;
  /** Renews the job's lease inside a batch's transaction; false: another worker owns the import now. */
  renewLease?: (trx: Db) => Promise<boolean>;
  /** After each committed batch (the CLI's progress line; tests stop a run here). */
  onBatch?: (row: ImportRow) => void | Promise<void>;
  /** What restoring a Waypost export needs (media storage and checks, the secrets key). */
  restore?: RestoreDeps | undefined;
}

export type RunOutcome = 'done' | 'cancelled';

/** Thrown when the import stopped being ours mid-run; the batch in hand was rolled back. */
class Stopped extends Error {}

/** An error another attempt cannot fix. */
function permanent(message: string): Error {
  return Object.assign(new Error(message), { permanent: true });
}

export async function runImport(options: RunOptions, importId: string): Promise<RunOutcome> {
  const { database } = options;
  const { db } = database;
  const now = options.now ?? Date.now;
  const first = await findImportRow(db, importId);
  if (!first || !(await startImportRow(db, importId, now()))) return 'cancelled';
  const row = (await findImportRow(db, importId))!;
  if (!(await importFilePresent(options.files, row.file_path))) throw permanent('the uploaded file is gone');
  // A file in a bucket is read from a local copy, made once per run.
  return withImportFile(options.files, row.file_path, (path) => runFrom(options, { ...row, file_path: path }));
}

/** The run, with the import's file at `row.file_path` on this machine. */
async function runFrom(options: RunOptions, row: ImportRow): Promise<RunOutcome> {
  const { database } = options;
  const { db } = database;
  const now = options.now ?? Date.now;
  const batchRecords = options.batchRecords ?? BATCH_RECORDS;
  const importId = row.id;
  if (row.format === EXPORT_FORMAT) {
    if (!options.restore) throw permanent('this worker cannot restore exports');
    const { onBatch } = options;
    return runRestore(
      {
        database,
        now,
        deps: options.restore,
        renewLease: options.renewLease,
        save: (trx, progress, at) => saveProgress(trx, importId, progress, at),
        onBatch: onBatch && ((progress, at) => onBatch({ ...row, ...progress, status: 'running', updated_at: at })),
        batchRecords: options.batchRecords ?? RESTORE_BATCH_RECORDS,
      },
      row,
    );
  }
  if (!isFormat(row.format)) throw permanent(`unknown format ${row.format}`);

  const state = {
    progress: row.progress,
    points_seen: row.points_seen,
    points_stored: row.points_stored,
    duplicates: row.duplicates,
    skipped: row.skipped,
    checkpoint: row.checkpoint,
  };
  const errors = JSON.parse(row.errors) as ImportError[];
  const owner = { user_id: row.user_id, scope: row.scope, import_id: importId };

  /** Stores a batch with the import's counts and checkpoint, in one transaction. */
  async function commit(read: ReadBatch): Promise<void> {
    const at = now();
    const count = read.points.length;
    errors.push(...read.errors);
    const next = {
      ...state,
      progress: read.progress,
      points_seen: state.points_seen + read.seen,
      skipped: state.skipped + read.skipped,
      checkpoint: state.checkpoint + read.records,
      errors: JSON.stringify(errors),
    };
    await db.transaction().execute(async (trx) => {
      if (options.renewLease && !(await options.renewLease(trx))) throw new Stopped();
      const stored = await insertImportedPoints(
        trx,
        database.sqlite,
        { ...owner, created_at: at },
        read.points,
        newIds(count, at),
      );
      next.points_stored += stored;
      next.duplicates += count - stored;
      if (!(await saveProgress(trx, importId, next, at))) throw new Stopped();
    });
    Object.assign(state, next);
    await options.onBatch?.({ ...row, ...next, status: 'running', updated_at: at });
  }

  const batches = readBatches({
    format: row.format,
    path: row.file_path,
    name: row.filename,
    size: row.size,
    skip: row.checkpoint,
    batchRecords,
    errorRoom: Math.max(0, MAX_ERRORS - errors.length),
  });
  try {
    for await (const read of batches) {
      await commit(read);
      read.release();
    }
  } catch (error) {
    if (error instanceof Stopped) return 'cancelled';
    throw error;
  }
  return 'done';
}
