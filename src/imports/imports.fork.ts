// An import run in a child process of its own (docs/imports.md "How an import runs"), as the
// server and `waypost worker` run every import: whatever a file costs in memory and CPU is the
// child's, under a heap limit of its own, so a file that a reader cannot refuse in time kills
// the child, never the server. The child (src/import-worker.ts) opens its own database
// connection and runs the same job (imports.job.ts performImport), renewing the lease in each
// batch's transaction; this side keeps the lease alive between batches, kills the child when the
// job is cancelled or taken over, and turns the child's death into an `import_worker_died` error.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { DatabaseOptions } from '../db/database.ts';
import type { Job } from '../jobs/worker.ts';
import type { ImportRow } from './imports.repo.ts';
import type { RunOutcome } from './imports.run.ts';

/**
 * An import's child process keeps V8's young generation small: it allocates fast for as long as
 * the file lasts, and its peak memory is what it is measured by (BENCHMARKS.md, "Imports"). The
 * server runs with a larger one (scripts/server-flags.mjs), which its requests want. Kept
 * here, with no imports to speak of, so the import benchmark can start its processes alike.
 */
export const IMPORT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

export interface IsolateOptions {
  /** The child's module (src/import-worker.ts, or .js when built). */
  worker: URL;
  /** Where the child opens the database. */
  database: DatabaseOptions;
  /** The configuration the child runs with (media limits and tools, the secrets key, the data folder). */
  config: Config;
  /** The child's heap, in MiB (--max-old-space-size). */
  memoryMb: number;
  /** The job's lease, renewed by the child with each batch and here between them. */
  leaseMs: number;
  /** Node flags the child starts with besides the heap limit (IMPORT_NODE_FLAGS). */
  execArgv?: readonly string[];
  /** Told the child's process id once it runs (tests, metrics). */
  onStart?: (pid: number) => void;
  /** A child that goes this long without a sign of progress is killed; default STALL_MS. */
  stallMs?: number;
}

/** What the server sends the child: one import to run. */
export interface ChildRequest {
  importId: string;
  jobId: string;
  workerId: string;
  leaseMs: number;
  database: DatabaseOptions;
  config: Config;
  batchRecords?: number | undefined;
}

/** What the child sends back: each committed batch, then how the run ended. */
export type ChildReply =
  | { batch: ImportRow }
  /** The child renewed the lease between batches (the statistics at the end): it is at work. */
  | { alive: true }
  | { done: RunOutcome }
  /** `outOfMemory`: the thread reading the file was stopped at the heap limit (src/imports/reading.ts). */
  | { error: string; permanent: boolean; outOfMemory?: true };

/** The child ended without an answer: killed, out of memory, crashed. */
export class WorkerDied extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WorkerDied';
  }
}

/** As the image workers: a lower CPU priority yields to the server's requests without starving the import. */
const NICENESS = 10;
/** What V8 writes when a heap is full, before it aborts. */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/i;
/** The end of the child's standard error, kept to tell why it died. */
const STDERR_TAIL = 4096;
/**
 * A child that neither commits a batch nor renews its lease for this long is stuck (a reader
 * spinning on a file), and is killed as a death: without this, the lease this side renews would
 * let it hold a worker's place for ever. A batch is 2000 records; real files give one in seconds.
 */
export const STALL_MS = 10 * 60_000;

const outOfMemory = (memoryMb: number) => `ran out of memory (its heap limit is ${memoryMb} MiB)`;

function reasonOf(code: number | null, signal: NodeJS.Signals | null, stderr: string, memoryMb: number): string {
  if (OUT_OF_MEMORY.test(stderr)) return outOfMemory(memoryMb);
  if (signal) return `was killed (${signal})`;
  return `exited with code ${code}`;
}

/**
 * Runs import `importId` of `job` in a new child process and resolves with its outcome; rejects
 * with the child's error (its `permanent` kept), or with WorkerDied when the child ended without
 * an answer. `onBatch` is told of each committed batch.
 */
export function runInChild(
  options: IsolateOptions,
  job: Job,
  importId: string,
  extras: { batchRecords?: number | undefined; onBatch?: ((row: ImportRow) => void | Promise<void>) | undefined } = {},
): Promise<RunOutcome> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(fileURLToPath(options.worker), [], {
      execArgv: [...(options.execArgv ?? []), `--max-old-space-size=${options.memoryMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // The database and the configuration come over the channel; the environment is only what
      // Node and the image workers it may start need.
      env: {
        PATH: process.env.PATH ?? '',
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      },
    });
    let settled = false;
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL);
    });
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, NICENESS);
      } catch {
        // Not allowed here (some containers): the child keeps the server's priority.
      }
      options.onStart?.(child.pid);
    }

    // Between batches (a long zip entry that holds no points, the statistics at the end) the
    // lease is kept here; when it is lost (a DELETE cancelled the import, another worker took the
    // job over) the child is stopped, as it would stop itself at its next batch.
    let lastSign = Date.now();
    const stallMs = options.stallMs ?? STALL_MS;
    const renewal = setInterval(
      () => {
        if (Date.now() - lastSign > stallMs) {
          const seconds = Math.round(stallMs / 1000);
          finish(() => reject(new WorkerDied(`made no progress for ${seconds} s and was stopped`)));
          return;
        }
        // A batch renewed it lately: no write here, which on SQLite would wait for the child's.
        if (Date.now() - lastSign < options.leaseMs / 3) return;
        job.renewLease().then(
          (held) => {
            if (!held) finish(() => resolve('cancelled'));
          },
          () => {}, // the database is away for a moment: the child's own renewal decides
        );
      },
      Math.min(Math.max(1000, options.leaseMs / 3), stallMs),
    );

    function finish(settle: () => void) {
      if (settled) return;
      settled = true;
      clearInterval(renewal);
      child.kill('SIGKILL');
      settle();
    }

    child.on('message', (reply: ChildReply) => {
      lastSign = Date.now();
      if ('alive' in reply) return;
      if ('batch' in reply) {
        Promise.resolve(extras.onBatch?.(reply.batch)).catch(() => {});
        return;
      }
      if ('done' in reply) finish(() => resolve(reply.done));
      else if (reply.outOfMemory) finish(() => reject(new WorkerDied(outOfMemory(options.memoryMb))));
      else finish(() => reject(Object.assign(new Error(reply.error), { permanent: reply.permanent })));
    });
    child.on('exit', (code, signal) => {
      // The standard error may still hold V8's last words: read it to its end first.
      const died = () => finish(() => reject(new WorkerDied(reasonOf(code, signal, stderr, options.memoryMb))));
      if (child.stderr && !child.stderr.readableEnded) child.stderr.once('end', died);
      else died();
    });
    child.on('error', (error) => {
      if (child.pid === undefined) finish(() => reject(new WorkerDied(`could not be started (${error.message})`)));
    });

    const request: ChildRequest = {
      importId,
      jobId: job.id,
      workerId: job.workerId,
      leaseMs: options.leaseMs,
      database: options.database,
      config: options.config,
      batchRecords: extras.batchRecords,
    };
    child.send(request);
  });
}
