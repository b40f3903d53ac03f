// Housekeeping (docs/housekeeping.md): one task that deletes everything with a lifetime once
// that lifetime is over, and nothing else. Each kind is one idempotent delete (or a sweep of
// a folder), so two runs at once would only find less to do; the job queue makes sure one
// runs at a time anyway (housekeeping.job.ts).
import type { StorageConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { purgeExpiredConnections } from '../services/connect.repo.ts';
import { purgeEndedDeliveries } from '../services/deliveries.repo.ts';
import { purgeEndedJobs } from '../jobs/jobs.repo.ts';
import { purgeExpiredKeys } from '../core/idempotency.repo.ts';
import { purgeExpiredEntities, purgeUnapprovedClients } from '../oauth/oauth.repo.ts';
import { purgeExpiredSessions } from '../account/sessions.repo.ts';
import { purgeExpiredLimits } from '../account/sign-in-limits.repo.ts';
import { finishRetiredMedia, purgeImportFiles, purgeMediaTempFiles } from './temp-files.ts';
import { purgeOrphanMedia } from './orphan-media.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const HOUR_MS = 60 * 60 * 1000;

/** What housekeeping removes, by the `kind` label of its metric. */
export const PURGED_KINDS = [
  'oauth',
  'oauth_apps',
  'sessions',
  'sign_in_limits',
  'service_connections',
  'idempotency_keys',
  'jobs',
  'deliveries',
  'import_files',
  'media_temp_files',
  'retired_media_files',
  'orphan_media_files',
] as const;
export type PurgedKind = (typeof PURGED_KINDS)[number];
export type Purged = Record<PurgedKind, number>;

/** How long what has no lifetime of its own is kept (src/config.ts). */
export interface Retention {
  /** Jobs that ended (done, failed, cancelled). */
  jobRetentionDays: number;
  /** Delivery records that ended without delivering (failed, cancelled). */
  deliveryRetentionDays: number;
  /** Temporary files nothing refers to (half uploads, a crashed run's leftovers), and stored media files no medium has. */
  tempFileRetentionHours: number;
}

export interface HousekeepingDeps extends Retention {
  db: Db;
  dataDir: string;
  /** Where stored files are (docs/design.md "Storage"); the data folder when absent. */
  storage?: StorageConfig | undefined;
}

/** Runs every purge once, as of `now`; returns how many of each kind it removed. */
export async function purgeExpired(deps: HousekeepingDeps, now: number): Promise<Purged> {
  const { db } = deps;
  const files = { dataDir: deps.dataDir, storage: deps.storage ?? { kind: 'local' as const } };
  const tempBefore = now - deps.tempFileRetentionHours * HOUR_MS;
  return {
    oauth: await purgeExpiredEntities(db, now),
    oauth_apps: await purgeUnapprovedClients(db, now),
    sessions: await purgeExpiredSessions(db, now),
    sign_in_limits: await purgeExpiredLimits(db, now),
    service_connections: await purgeExpiredConnections(db, now),
    idempotency_keys: await purgeExpiredKeys(db, now),
    jobs: await purgeEndedJobs(db, now - deps.jobRetentionDays * DAY_MS),
    deliveries: await purgeEndedDeliveries(db, now - deps.deliveryRetentionDays * DAY_MS),
    import_files: await purgeImportFiles(db, files, tempBefore),
    media_temp_files: await purgeMediaTempFiles(deps.dataDir, tempBefore),
    // A deletion takes milliseconds between its two steps; an hour later it has stopped for good.
    retired_media_files: await finishRetiredMedia(db, files, now - HOUR_MS),
    // After the retired ones: a file put back is in use, one removed is no orphan to count.
    orphan_media_files: await purgeOrphanMedia(db, files, tempBefore),
  };
}
