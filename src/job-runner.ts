// The worker as the server and `waypost worker` run it: configuration in, every job kind's handler
// wired (the one place that knows them all, so src/jobs/ stays a queue that imports no feature).
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseOptions, type Config } from './config.ts';
import type { Database, DatabaseOptions } from './db/database.ts';
import { HOUSEKEEPING_JOB, housekeepingHandler, scheduleHousekeeping } from './housekeeping/housekeeping.job.ts';
import type { Purged } from './housekeeping/housekeeping.ts';
import { IMPORT_JOB, importHandler } from './imports/imports.job.ts';
import { historyRefreshHandler, queueMarkedPeople } from './history/refresh.job.ts';
import { HISTORY_REFRESH_JOB } from './locations/refresh.jobs.ts';
import type { RestoreDeps } from './archive/restore/restore.phase.ts';
import { createOutbound, type Outbound } from './lib/ssrf.ts';
import { findMediaTools } from './media/media.ffmpeg.ts';
import type { FetchDeps } from './media/media.fetch.ts';
import { mediaJobsFor, type MediaJobs } from './media/image-workers.ts';
import { mediaDeps, type MediaDeps } from './media/media.logic.ts';
import { importFiles } from './imports/imports.files.ts';
import { IMPORT_NODE_FLAGS } from './imports/imports.fork.ts';
import { mediaStorage } from './media/media.storage.ts';
import { ensurePollJobs } from './services/polling/polls.schedule.ts';
import { pollHandler } from './services/polling/polls.job.ts';
import { POLL_JOB } from './services/polling/polls.repo.ts';
import { deliveryHandler } from './services/deliveries.job.ts';
import { DELIVERY_JOB } from './services/deliveries.repo.ts';
import { EDIT_JOB, editHandler } from './services/deliveries.edit.ts';
import { secretsKey } from './services/secrets.ts';
import { createWorker, type Worker } from './jobs/worker.ts';

export interface JobRunnerOptions {
  config: Config;
  database: Database;
  /** Tests: a clock and randomness of their own, an outbound client with a fake resolver. */
  now?: () => number;
  random?: () => number;
  outbound?: Outbound;
  workerId?: string;
  pollMs?: number;
  onError?: (error: unknown) => void;
  /** Told what each housekeeping run removed (the metric of src/http/metrics.ts). */
  onPurged?: (purged: Purged) => void;
  /** Where an import's child process connects; default: the configured database (tests: their own). */
  importDatabase?: DatabaseOptions;
  /** False runs imports in this process, as before issue 30 (the benchmark's comparison only). */
  isolateImports?: boolean;
}

/** The child process an import runs in (src/imports/imports.fork.ts), beside this module as .ts or .js. */
const IMPORT_WORKER = new URL(`./import-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface JobRunner {
  worker: Worker;
  /** Schedules housekeeping (docs/housekeeping.md), then starts the worker. */
  start(): void;
  /** Stops the worker (jobs in flight finish) and closes its connections. */
  close(): Promise<void>;
}

/**
 * The image worker processes and ffmpeg that jobs need for media (public copies going out with
 * a delivery, images a poll brings in, files a restore checks): started by the first job that
 * needs them, one set for all.
 */
export function lazyMedia(config: Config) {
  let jobs: MediaJobs | undefined;
  let made: Promise<MediaDeps> | undefined;
  const imageJobs = () => (jobs ??= mediaJobsFor(config));
  return {
    jobs: imageJobs,
    deps: () => (made ??= findMediaTools(config).then((tools) => mediaDeps(mediaStorage(config), tools, imageJobs()))),
    close: () => jobs?.close(),
  };
}

/** What restoring a Waypost export needs (src/archive/restore/). */
export function restoreDeps(config: Config, media: ReturnType<typeof lazyMedia>): RestoreDeps {
  return {
    storage: mediaStorage(config),
    media: media.deps,
    uploadLimit: config.uploadLimit,
    secretsKey: secretsKey(config.secretKey),
  };
}

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { config, database } = options;
  const now = options.now ?? Date.now;
  // A request must end well inside the lease, or a slow target would see a second worker's copy.
  const timeoutMs = Math.min(15_000, (config.jobLeaseSeconds * 1000) / 2);
  const outbound = options.outbound ?? createOutbound({ allow: config.outboundAllow, timeoutMs });
  const media = lazyMedia(config);
  let fetchDeps: FetchDeps | undefined;
  const pollMedia = (): FetchDeps => (fetchDeps ??= { outbound, storage: mediaStorage(config), jobs: media.jobs() });
  const secrets = secretsKey(config.secretKey);
  const worker = createWorker({
    db: database.db,
    dialect: database.dialect,
    handlers: {
      [DELIVERY_JOB]: deliveryHandler({
        db: database.db,
        outbound,
        secretsKey: secrets,
        now,
        baseUrl: config.baseUrl,
        media: media.deps,
      }),
      [EDIT_JOB]: editHandler({
        db: database.db,
        outbound,
        secretsKey: secrets,
        now,
        baseUrl: config.baseUrl,
        media: media.deps,
      }),
      [IMPORT_JOB]: importHandler({
        database,
        files: importFiles(config),
        now,
        restore: restoreDeps(config, media),
        // A hostile file costs the child its heap, never the server (docs/imports.md).
        isolate:
          options.isolateImports === false
            ? undefined
            : {
                worker: IMPORT_WORKER,
                database: options.importDatabase ?? databaseOptions(config),
                config,
                memoryMb: config.importMemoryMb,
                leaseMs: config.jobLeaseSeconds * 1000,
                execArgv: IMPORT_NODE_FLAGS,
              },
      }),
      [POLL_JOB]: pollHandler({
        db: database.db,
        outbound,
        secretsKey: secrets,
        now,
        media: pollMedia,
        imageMaxBytes: config.uploadLimit,
      }),
      [HISTORY_REFRESH_JOB]: historyRefreshHandler({ db: database.db, now }),
      [HOUSEKEEPING_JOB]: housekeepingHandler({
        db: database.db,
        dataDir: config.dataDir,
        storage: config.storage,
        jobRetentionDays: config.jobRetentionDays,
        deliveryRetentionDays: config.deliveryRetentionDays,
        tempFileRetentionHours: config.tempFileRetentionHours,
        intervalMs: config.housekeepingIntervalMinutes * 60_000,
        now,
        ...(options.onPurged ? { onPurged: options.onPurged } : {}),
      }),
    },
    // SQLite takes one writer at a time; more workers there would only wait on each other.
    concurrency: config.workerConcurrency,
    leaseMs: config.jobLeaseSeconds * 1000,
    retry: { baseMs: config.retryBaseSeconds * 1000, maxMs: config.retryMaxSeconds * 1000 },
    now,
    ...(options.random ? { random: options.random } : {}),
    ...(options.workerId ? { workerId: options.workerId } : {}),
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  // A polling service whose chain of poll jobs broke (a crash between two) gets its next one.
  ensurePollJobs(database.db, now()).catch((error: unknown) => options.onError?.(error));
  // Days whose visits were never detected (after an upgrade: every day) get their job.
  queueMarkedPeople(database.db, now()).catch((error: unknown) => options.onError?.(error));
  return {
    worker,
    start() {
      // Every worker schedules the current period's run: the same row, so one run (src/housekeeping/).
      scheduleHousekeeping(database.db, now(), config.housekeepingIntervalMinutes * 60_000).then(
        () => worker.wake(),
        (error: unknown) => options.onError?.(error),
      );
      worker.start();
    },
    close: async () => {
      await worker.stop();
      media.close();
      if (!options.outbound) await outbound.close();
    },
  };
}
