// The worker as the server and `waypost worker` run it: configuration in, every job kind's handler
// wired (the one place that knows them all, so src/jobs/ stays a queue that imports no feature).
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { IMPORT_JOB, importHandler } from './imports/imports.job.ts';
import { createOutbound, type Outbound } from './lib/ssrf.ts';
import type { FetchDeps } from './media/media.fetch.ts';
import { mediaJobsFor, type MediaJobs } from './media/media.jobs.ts';
import { mediaStorage } from './media/media.storage.ts';
import { ensurePollJobs } from './services/polling/polls.schedule.ts';
import { pollHandler } from './services/polling/polls.job.ts';
import { POLL_JOB } from './services/polling/polls.repo.ts';
import { deliveryHandler } from './services/deliveries.job.ts';
import { DELIVERY_JOB } from './services/deliveries.logic.ts';
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
}

export interface JobRunner {
  worker: Worker;
  /** Stops the worker (jobs in flight finish) and closes its connections. */
  close(): Promise<void>;
}

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { config, database } = options;
  const now = options.now ?? Date.now;
  // A request must end well inside the lease, or a slow target would see a second worker's copy.
  const timeoutMs = Math.min(15_000, (config.jobLeaseSeconds * 1000) / 2);
  const outbound = options.outbound ?? createOutbound({ allow: config.outboundAllow, timeoutMs });
  // Images brought in by polls: the image worker processes start on the first one.
  let mediaJobs: MediaJobs | undefined;
  let fetchDeps: FetchDeps | undefined;
  const media = (): FetchDeps => {
    mediaJobs ??= mediaJobsFor(config);
    fetchDeps ??= { outbound, storage: mediaStorage(config.dataDir), jobs: mediaJobs };
    return fetchDeps;
  };
  const secrets = secretsKey(config.secretKey);
  const worker = createWorker({
    db: database.db,
    dialect: database.dialect,
    handlers: {
      [DELIVERY_JOB]: deliveryHandler({ db: database.db, outbound, secretsKey: secrets, now }),
      [IMPORT_JOB]: importHandler({ database, now }),
      [POLL_JOB]: pollHandler({
        db: database.db,
        outbound,
        secretsKey: secrets,
        now,
        media,
        imageMaxBytes: config.uploadLimit,
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
  return {
    worker,
    close: async () => {
      await worker.stop();
      mediaJobs?.close();
      if (!options.outbound) await outbound.close();
    },
  };
}
