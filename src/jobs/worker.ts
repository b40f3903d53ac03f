// The job worker: claims due jobs with a lease, runs each through its kind's handler, and
// records the outcome: done, back in the queue after a backoff, or failed for good.
// It runs inside the server by default and as `waypost worker` for separate processes; on
// PostgreSQL any number of workers share the queue (SKIP LOCKED), on SQLite run one.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db, DialectName } from '../db/database.ts';
import { claimJobs, extendLease, finishJob, requeueJob, type JobRow } from './jobs.repo.ts';
import { retryDelayMs, type RetryPolicy } from './retry.ts';

/** A claimed job, as a handler sees it. */
export interface Job {
  id: string;
  /** The worker holding it (a child process the handler starts renews the lease in its name). */
  workerId: string;
  kind: string;
  ref: string | null;
  payload: unknown;
  /** This attempt's number, 1-based. */
  attempt: number;
  maxAttempts: number;
  /**
   * Extends this worker's lease by the lease time, for a job that runs longer than one lease
   * (an import). False when the lease was lost (taken by another worker, or cancelled): the
   * handler should stop, as someone else owns the job now. Given a transaction, the renewal is
   * part of it: work committed with it was done by the job's holder.
   */
  renewLease(trx?: Db): Promise<boolean>;
}

/**
 * One kind of job. `perform` does the outside work and writes nothing; `succeeded` and
 * `failed` record the outcome inside the same transaction that closes the job, so the job's
 * state and the handler's never disagree.
 */
export interface JobHandler<Result = unknown> {
  perform(job: Job): Promise<Result>;
  succeeded(trx: Db, job: Job, result: Result, now: number): Promise<void>;
  failed(trx: Db, job: Job, error: string, final: boolean, now: number): Promise<void>;
}

/** An error that another attempt cannot fix (e.g. HTTP 401 from the target). */
export function isPermanent(error: unknown): boolean {
  return (error as { permanent?: unknown } | null)?.permanent === true;
}

export interface WorkerOptions {
  db: Db;
  dialect: DialectName;
  handlers: Record<string, JobHandler<unknown>>;
  concurrency: number;
  leaseMs: number;
  retry: RetryPolicy;
  /** How often an idle worker looks for due jobs (retries come due without a wake-up). */
  pollMs?: number;
  workerId?: string;
  /** Injectable clock and randomness: tests move time instead of waiting for it. */
  now?: () => number;
  random?: () => number;
  onError?: (error: unknown, job?: Job) => void;
}

export interface Worker {
  readonly id: string;
  /** Claims up to `concurrency` due jobs, runs them, and returns how many it ran. */
  runOnce(): Promise<number>;
  /** Runs until `stop()`, keeping up to `concurrency` jobs in flight. */
  start(): void;
  /** Look for work now (e.g. right after a post was queued). */
  wake(): void;
  /** Stops claiming and waits for the jobs in flight. */
  stop(): Promise<void>;
}

export function createWorker(options: WorkerOptions): Worker {
  const { db, dialect, handlers, concurrency, leaseMs, retry, pollMs = 1000 } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const onError = options.onError ?? (() => {});
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const holder = (job: Job) => ({ id: job.id, workerId: id });

  function toJob(row: JobRow): Job {
    return {
      id: row.id,
      workerId: id,
      kind: row.kind,
      ref: row.ref,
      payload: JSON.parse(row.payload) as unknown,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      renewLease: (trx = db) => extendLease(trx, { id: row.id, workerId: id }, now() + leaseMs, now()),
    };
  }

  async function run(job: Job): Promise<void> {
    const handler = handlers[job.kind];
    try {
      if (!handler) throw Object.assign(new Error(`no handler for jobs of kind ${job.kind}`), { permanent: true });
      const result = await handler.perform(job);
      await db.transaction().execute(async (trx) => {
        const at = now();
        if (await finishJob(trx, holder(job), 'done', null, at)) await handler.succeeded(trx, job, result, at);
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const final = isPermanent(error) || job.attempt >= job.maxAttempts;
      await db
        .transaction()
        .execute(async (trx) => {
          const at = now();
          const kept = final
            ? await finishJob(trx, holder(job), 'failed', message, at)
            : await requeueJob(trx, holder(job), at + retryDelayMs(job.attempt, retry, random), message, at);
          if (kept && handler) await handler.failed(trx, job, message, final, at);
        })
        .catch((dbError: unknown) => onError(dbError, job));
    }
  }

  async function claim(limit: number): Promise<Job[]> {
    const rows = await claimJobs(db, { dialect, workerId: id, now: now(), leaseMs, limit });
    return rows.map(toJob);
  }

  async function runOnce(): Promise<number> {
    const jobs = await claim(concurrency);
    await Promise.all(jobs.map(run));
    return jobs.length;
  }

  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  // A wake-up that came while the loop was busy, so the next pause does not sleep through it.
  let woken = false;
  const inFlight = new Set<Promise<void>>();

  function wake() {
    if (wakeUp) wakeUp();
    else woken = true;
  }

  function pause(ms: number): Promise<void> {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function keepBusy(): Promise<void> {
    while (running) {
      const free = concurrency - inFlight.size;
      let claimed: Job[] = [];
      if (free > 0) {
        try {
          claimed = await claim(free);
        } catch (error) {
          onError(error);
        }
      }
      for (const job of claimed) {
        const task = run(job).finally(() => {
          inFlight.delete(task);
          wake();
        });
        inFlight.add(task);
      }
      // A full batch suggests more is due: look again at once; otherwise wait for a wake-up
      // (a new job, a finished one) or the poll interval.
      if (claimed.length === 0 || claimed.length < free || inFlight.size >= concurrency) {
        if (running) await pause(pollMs);
      }
    }
    await Promise.all(inFlight);
  }

  return {
    id,
    runOnce,
    start() {
      if (running) return;
      running = true;
      loop = keepBusy();
    },
    wake,
    async stop() {
      running = false;
      wake();
      await loop;
    },
  };
}
