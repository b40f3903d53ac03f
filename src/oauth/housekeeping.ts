// Deletes what has expired: oidc-provider never removes its expired rows, and web sessions,
// sign-in counters whose window is over, Idempotency-Key records past their day and jobs that
// ended longer ago than WAYPOST_JOB_RETENTION_DAYS pile up too. Runs at start and then periodically in
// every process; the deletes are idempotent, so several processes doing it at once is harmless.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { purgeEndedJobs } from '../jobs/jobs.repo.ts';
import { nowMs } from '../lib/time.ts';
import { purgeExpiredKeys } from '../services/idempotency.repo.ts';
import { purgeExpiredSessions } from '../account/sessions.repo.ts';
import { purgeExpiredLimits } from '../account/sign-in-limits.repo.ts';
import { purgeExpiredEntities } from './oauth.repo.ts';

export const PURGE_INTERVAL_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

export async function purgeExpired(db: Db, now = nowMs(), jobRetentionDays = 7): Promise<number> {
  return (
    (await purgeExpiredEntities(db, now)) +
    (await purgeExpiredSessions(db, now)) +
    (await purgeExpiredLimits(db, now)) +
    (await purgeExpiredKeys(db, now)) +
    (await purgeEndedJobs(db, now - jobRetentionDays * DAY_MS))
  );
}

export async function housekeeping(
  app: FastifyInstance,
  { db, jobRetentionDays }: { db: Db; jobRetentionDays: number },
) {
  const run = () =>
    purgeExpired(db, nowMs(), jobRetentionDays).then(
      (deleted) => app.log.debug({ deleted }, 'purged expired rows'),
      (err: unknown) => app.log.warn({ err }, 'purging expired rows failed'),
    );
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await run();
    timer = setInterval(() => void run(), PURGE_INTERVAL_MS).unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
