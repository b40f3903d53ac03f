// All SQL of the job queue, the only code that writes its rows: features queue, cancel and
// delete their jobs through the functions here, in their own transaction (`db` may be one), so
// a job exists exactly when what it is about does (the outbox, docs/design.md "Jobs"). A job
// is claimed by setting a lease (`locked_by`, `locked_until`); a job whose lease ran out while
// `running` belongs to a worker that died, and is claimed again.
import type { Db, DialectName } from '../db/database.ts';
import type { JobsTable, Tables } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import { sql, type ExpressionBuilder, type SelectQueryBuilder, type Updateable } from 'kysely';

export type JobRow = JobsTable;

export async function insertJobs(db: Db, rows: JobRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('jobs').values(rows).execute();
}

/** A job to queue. */
export interface NewJob {
  /** A fixed id, for a job that must exist once (a given period's housekeeping); a new id when left out. */
  id?: string | undefined;
  kind: string;
  /** What the job is about (a delivery, an import, a service): how it is found and cancelled. */
  ref: string | null;
  /** What the handler gets, stored as JSON. */
  payload: unknown;
  maxAttempts: number;
  /** When it is due; now when left out. */
  runAt?: number;
  /** Held from the start by a worker that runs it itself (`waypost import` in the foreground). */
  heldBy?: { workerId: string; leaseMs: number } | undefined;
}

function newJobRow(job: NewJob, now: number): JobRow {
  const { heldBy } = job;
  return {
    id: job.id ?? newId(),
    kind: job.kind,
    ref: job.ref,
    payload: JSON.stringify(job.payload),
    status: heldBy ? 'running' : 'queued',
    attempts: heldBy ? 1 : 0,
    max_attempts: job.maxAttempts,
    run_at: job.runAt ?? now,
    locked_by: heldBy?.workerId ?? null,
    locked_until: heldBy ? now + heldBy.leaseMs : null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/** Queues jobs (in the caller's transaction when `db` is one). */
export function enqueueJobs(db: Db, jobs: readonly NewJob[], now: number): Promise<void> {
  return insertJobs(
    db,
    jobs.map((job) => newJobRow(job, now)),
  );
}

/** Queues a job unless one with its id, or one `jobs_poll_once` allows once, exists already; then nothing. */
export async function enqueueJobOnce(db: Db, job: NewJob, now: number): Promise<void> {
  await db
    .insertInto('jobs')
    .values(newJobRow(job, now))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export interface ClaimOptions {
  dialect: DialectName;
  workerId: string;
  now: number;
  leaseMs: number;
  limit: number;
}

/**
 * Claims up to `limit` due jobs for this worker and counts the attempt. On PostgreSQL several
 * workers claim at once: `FOR UPDATE SKIP LOCKED` makes each skip rows another is claiming,
 * instead of waiting on them or taking them twice. SQLite has one writer at a time, so the
 * statement alone is atomic.
 */
export async function claimJobs(db: Db, { dialect, workerId, now, leaseMs, limit }: ClaimOptions): Promise<JobRow[]> {
  const due = (w: ExpressionBuilder<Tables, 'jobs'>) =>
    w.or([
      w.and([w('status', '=', 'queued'), w('run_at', '<=', now)]),
      w.and([w('status', '=', 'running'), w('locked_until', '<', now)]),
    ]);
  // A poll that finds nothing writes nothing. On SQLite an UPDATE takes the write lock even when
  // it changes no row, and waiting for it blocks the process: while an import's child holds that
  // lock for a batch, every idle poll stalled the server's requests (docs/imports.md).
  const any = await db.selectFrom('jobs').select('id').where(due).limit(1).executeTakeFirst();
  if (!any) return [];
  return db
    .updateTable('jobs')
    .set({
      status: 'running',
      locked_by: workerId,
      locked_until: now + leaseMs,
      attempts: sql<number>`attempts + 1`,
      updated_at: now,
    })
    .where('id', 'in', (eb) => {
      const ids = eb.selectFrom('jobs').select('id').where(due).orderBy('run_at').limit(limit);
      return dialect === 'postgres' ? ids.forUpdate().skipLocked() : ids;
    })
    .returningAll()
    .execute();
}

/** A job as the worker holding it knows it. */
type Held = { id: string; workerId: string };

/**
 * Changes a job only while this worker still holds it (running, under its lease); false when
 * the lease was lost to another worker or the job was cancelled meanwhile.
 */
async function updateHeld(db: Db, job: Held, change: Updateable<JobsTable>): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set(change)
    .where('id', '=', job.id)
    .where('status', '=', 'running')
    .where('locked_by', '=', job.workerId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends a job this worker still holds; false when its lease was lost or it was cancelled. */
export function finishJob(
  db: Db,
  job: Held,
  status: 'done' | 'failed',
  lastError: string | null,
  now: number,
): Promise<boolean> {
  return updateHeld(db, job, { status, last_error: lastError, locked_by: null, locked_until: null, updated_at: now });
}

/** Moves the end of the lease of a job this worker still holds; false when it holds it no longer. */
export function extendLease(db: Db, job: Held, lockedUntil: number, now: number): Promise<boolean> {
  return updateHeld(db, job, { locked_until: lockedUntil, updated_at: now });
}

/** Puts a job this worker holds back in the queue, due at `runAt`. */
export function requeueJob(db: Db, job: Held, runAt: number, lastError: string, now: number): Promise<boolean> {
  return updateHeld(db, job, {
    status: 'queued',
    run_at: runAt,
    last_error: lastError,
    locked_by: null,
    locked_until: null,
    updated_at: now,
  });
}

/** Cancels the unfinished jobs about any of `refs` (a worker holding one finds it gone). */
export async function cancelJobs(db: Db, kind: string, refs: readonly string[], now: number): Promise<void> {
  if (refs.length === 0) return;
  await db
    .updateTable('jobs')
    .set({ status: 'cancelled', locked_by: null, locked_until: null, updated_at: now })
    .where('kind', '=', kind)
    .where('ref', 'in', [...refs])
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** Deletes the jobs of a kind about any of `refs` (ids, or a query of them), whatever their state. */
export async function deleteJobs(
  db: Db,
  kind: string,
  refs: readonly string[] | SelectQueryBuilder<Tables, keyof Tables, { id: string }>,
): Promise<void> {
  if (Array.isArray(refs) && refs.length === 0) return;
  await db
    .deleteFrom('jobs')
    .where('kind', '=', kind)
    .where('ref', 'in', Array.isArray(refs) ? [...(refs as readonly string[])] : refs)
    .execute();
}

export function findJob(db: Db, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Deletes jobs that ended (done, failed or cancelled) before `before`; queued and running ones stay. */
export async function purgeEndedJobs(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('jobs')
    .where('status', 'in', ['done', 'failed', 'cancelled'])
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The newest job of a kind about `ref` (a delivery's job, to send it again). */
export function latestJobFor(db: Db, kind: string, ref: string): Promise<JobRow | undefined> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', kind)
    .where('ref', '=', ref)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Replaces a job's payload (stored as JSON), whatever its state: what a later attempt sends. */
export async function setJobPayload(db: Db, id: string, payload: unknown, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ payload: JSON.stringify(payload), updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Queues an ended job again from its first attempt, due at once, with a new payload (stored as JSON). */
export async function restartJob(db: Db, id: string, payload: unknown, now: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      status: 'queued',
      payload: JSON.stringify(payload),
      attempts: 0,
      run_at: now,
      locked_by: null,
      locked_until: null,
      last_error: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}
