// Image jobs run in child processes (media.worker.ts), never in the server: decoding, EXIF and
// encoding use their own event loop, thread pool and memory, so a hostile file cannot stall
// the server's file reads or password hashing (which share its thread pool). At most
// `concurrency` children run at once, each one job at a time at a lower CPU priority; a job
// that runs over its time has its child killed (SIGKILL), not merely abandoned, and the next job
// gets a fresh child.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import { LimitError, type LimitCode, type MediaLimits } from './media.limits.ts';
import type { Fitted, ImageFacts } from './media.facts.ts';

export type ImageJob =
  | { op: 'inspect'; path: string; mimeType: string; timeZone: string }
  | { op: 'thumbnail'; input: Uint8Array }
  | { op: 'strip'; path: string; mimeType: string; target: string }
  | { op: 'fit'; path: string; target: string; maxBytes: number; maxSide: number };

export interface JobResults {
  inspect: ImageFacts & { thumbnail: Uint8Array | undefined };
  thumbnail: Uint8Array | undefined;
  strip: 'ok' | 'failed';
  fit: Fitted | 'failed';
}

/** What the server sends a worker, and what it answers. */
export interface JobRequest {
  id: number;
  job: ImageJob;
  limits: MediaLimits;
}
export type JobReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; code: LimitCode; detail: string }
  /** Sent once, when the worker has loaded and listens: a job's time starts when it gets the job. */
  | { ready: true };

/** Every child is busy and the queue is full: try again later. */
export class BusyError extends Error {
  constructor() {
    super('The server is busy with other images; try again in a moment.');
    this.name = 'BusyError';
  }
}

export interface MediaJobsOptions {
  limits: MediaLimits;
  /** Children (and so jobs) at once. */
  concurrency: number;
  /** Time one job may take in its child, in milliseconds. */
  timeoutMs: number;
  /** Jobs that may wait for a child; more are refused with BusyError. Default 64 per child. */
  maxQueue?: number;
  /** The worker module; tests pass one of their own. */
  worker?: URL;
  /** Told how each job ended: 'ok', a limit's code, 'media_processing_timeout' or 'media_processing_failed'. */
  onJob?: (op: ImageJob['op'], outcome: string) => void;
}

export interface MediaJobs {
  run<K extends ImageJob['op']>(job: Extract<ImageJob, { op: K }>): Promise<JobResults[K]>;
  /** Jobs started, by kind, since the start. */
  readonly started: Readonly<Record<ImageJob['op'], number>>;
  /** Process ids of the children running a job now. */
  running(): number[];
  /** Process ids of every child, idle ones too. */
  workers(): number[];
  close(): void;
}

interface Pending {
  id: number;
  job: ImageJob;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  job: Pending | undefined;
  idle?: NodeJS.Timeout;
}

/** The worker beside this module, as .ts from source or .js when built. */
const WORKER = new URL(`./media.worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** The lowest priority would starve jobs on a busy machine; 10 yields to the server without that. */
const NICENESS = 10;
/** A worker that has not loaded after this long is killed. */
const STARTUP_MS = 60_000;
/** A worker idle this long ends, giving back what its last image made it hold. */
const IDLE_MS = 60_000;

/** The image jobs of a server, as configured (WAYPOST_MEDIA_*). */
export function mediaJobsFor(config: Config): MediaJobs {
  return createMediaJobs({
    limits: { maxPixels: config.mediaMaxPixels, maxMetadataBytes: config.mediaMaxMetadataBytes },
    concurrency: config.mediaConcurrency,
    timeoutMs: config.mediaTimeoutMs,
  });
}

export function createMediaJobs(options: MediaJobsOptions): MediaJobs {
  const { limits, concurrency, timeoutMs } = options;
  const maxQueue = options.maxQueue ?? 64 * concurrency;
  const slots: Slot[] = [];
  const queue: Pending[] = [];
  const started = { inspect: 0, thumbnail: 0, strip: 0, fit: 0 };
  let nextId = 1;
  let closed = false;

  const failed = () =>
    new LimitError('media_processing_failed', 'The file could not be processed: the image worker stopped on it.');
  const timedOut = () =>
    new LimitError(
      'media_processing_timeout',
      `Processing the file took longer than the limit of ${timeoutMs} ms (WAYPOST_MEDIA_TIMEOUT_MS).`,
    );

  function settle(slot: Slot, outcome: { value: unknown } | { error: LimitError }) {
    const pending = slot.job;
    if (!pending) return;
    slot.job = undefined;
    clearTimeout(pending.timer);
    options.onJob?.(pending.job.op, 'value' in outcome ? 'ok' : outcome.error.code);
    if ('value' in outcome) pending.resolve(outcome.value);
    else pending.reject(outcome.error);
  }

  /** Ends a worker that stays idle; a job handed to it in time disarms this. */
  function idle(slot: Slot) {
    if (slot.job || !slots.includes(slot)) return;
    hold(slot, false);
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => discard(slot), IDLE_MS);
    slot.idle.unref();
  }

  /** A worker starting or at work keeps the process running; an idle one never does. */
  function hold(slot: Slot, busy: boolean) {
    if (busy) {
      slot.child.ref();
      slot.child.channel?.ref();
    } else {
      slot.child.unref();
      slot.child.channel?.unref();
    }
  }

  function discard(slot: Slot) {
    clearTimeout(slot.idle);
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    slot.child.kill('SIGKILL');
  }

  function spawnSlot(): Slot {
    const child = fork(fileURLToPath(options.worker ?? WORKER), [], {
      // The JavaScript heap of a worker holds exifr's reading at most; pixels live outside it.
      execArgv: ['--max-old-space-size=256'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // Only what a worker needs: none of the server's secrets (database URL, key) reach a
      // process that parses hostile files. One job at a time needs few threads.
      env: {
        PATH: process.env.PATH ?? '',
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        UV_THREADPOOL_SIZE: '2',
      },
    });
    const slot: Slot = { child, ready: false, job: undefined };
    const startup = setTimeout(() => child.kill('SIGKILL'), STARTUP_MS);
    startup.unref();
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, NICENESS);
      } catch {
        // Not allowed here (some containers): the child keeps the server's priority.
      }
    }
    child.on('message', (reply: JobReply) => {
      if ('ready' in reply) {
        clearTimeout(startup);
        slot.ready = true;
        pump();
        return idle(slot);
      }
      if (reply.id !== slot.job?.id) return;
      settle(slot, reply.ok ? { value: reply.value } : { error: new LimitError(reply.code, reply.detail) });
      pump();
      idle(slot);
    });
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(startup);
      discard(slot);
      settle(slot, { error: failed() });
      // A worker that could not even start fails the job it was started for, so a broken
      // installation cannot make the pool start workers forever.
      if (!slot.ready) queue.shift()?.reject(failed());
      pump();
    };
    child.on('exit', end);
    // A process that could not be started at all may never report an exit.
    child.on('error', () => {
      if (child.pid === undefined) end();
    });
    return slot;
  }

  function start(slot: Slot, pending: Pending) {
    clearTimeout(slot.idle);
    hold(slot, true);
    slot.job = pending;
    started[pending.job.op] += 1;
    pending.timer = setTimeout(() => {
      settle(slot, { error: timedOut() });
      discard(slot);
      pump();
    }, timeoutMs);
    const request: JobRequest = { id: pending.id, job: pending.job, limits };
    slot.child.send(request, (error) => {
      if (error) {
        discard(slot);
        settle(slot, { error: failed() });
        pump();
      }
    });
  }

  function pump() {
    if (closed) return;
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (slot.ready && !slot.job) start(slot, queue.shift()!);
    }
    // Workers start for the jobs that wait and no starting worker will take, up to the bound.
    const starting = slots.filter((slot) => !slot.ready).length;
    const wanted = Math.min(queue.length - starting, concurrency - slots.length);
    for (let i = 0; i < wanted; i += 1) slots.push(spawnSlot());
  }

  return {
    run<K extends ImageJob['op']>(job: Extract<ImageJob, { op: K }>): Promise<JobResults[K]> {
      if (closed || queue.length >= maxQueue) return Promise.reject(new BusyError());
      return new Promise<JobResults[K]>((resolve, reject) => {
        queue.push({ id: nextId++, job, resolve: resolve as (value: unknown) => void, reject });
        pump();
      });
    },
    started,
    running: () => slots.filter((slot) => slot.job && slot.child.pid !== undefined).map((slot) => slot.child.pid!),
    workers: () => slots.flatMap((slot) => (slot.child.pid === undefined ? [] : [slot.child.pid])),
    close() {
      closed = true;
      for (const pending of queue.splice(0)) pending.reject(new BusyError());
      for (const slot of [...slots]) {
        discard(slot);
        settle(slot, { error: failed() });
      }
    },
  };
}
