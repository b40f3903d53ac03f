// The worker as the server and `waypost worker` run it: configuration in, every job kind's handler
// wired (the one place that knows them all, so src/jobs/ stays a queue that imports no feature).
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { IMPORT_JOB, importHandler } from './imports/imports.job.ts';
import { createOutbound, type Outbound } from './lib/ssrf.ts';
import { findMediaTools } from './media/media.ffmpeg.ts';
import { mediaJobsFor, type MediaJobs } from './media/media.jobs.ts';
import { mediaDeps, type MediaDeps } from './media/media.logic.ts';
import { mediaStorage } from './media/media.storage.ts';
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
  // Media going out with posts: the public copies, made by image workers of this process's own,
  // started only when a delivery first carries a medium.
  let media: { deps: Promise<MediaDeps>; jobs: MediaJobs } | undefined;
  const deliveryMedia = () => {
    if (!media) {
      const jobs = mediaJobsFor(config);
      const deps = findMediaTools(config).then((tools) => mediaDeps(mediaStorage(config.dataDir), tools, jobs));
      media = { deps, jobs };
    }
    return media.deps;
  };
  const worker = createWorker({
    db: database.db,
    dialect: database.dialect,
    handlers: {
      [DELIVERY_JOB]: deliveryHandler({
        db: database.db,
        outbound,
        secretsKey: secretsKey(config.secretKey),
        now,
        baseUrl: config.baseUrl,
        media: deliveryMedia,
      }),
      [IMPORT_JOB]: importHandler({ database, now }),
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
  return {
    worker,
    close: async () => {
      await worker.stop();
      media?.jobs.close();
      if (!options.outbound) await outbound.close();
    },
  };
}
