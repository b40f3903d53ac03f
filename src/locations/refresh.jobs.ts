// The job that brings what is derived from a person's points up to date (statistics, visits and
// trips; src/history/refresh.job.ts runs it). Every write of points queues one; at most one is
// queued per person (`jobs_visits_once`, migration 0033), so the batches a tracker sends while it
// waits are detected together.
import type { Db } from '../db/database.ts';
import { deleteJobs, enqueueJobOnce } from '../jobs/jobs.repo.ts';

export const HISTORY_REFRESH_JOB = 'visits';
/** A little after the write: a phone sending every minute gets one detection, not one a batch. */
export const HISTORY_REFRESH_DELAY_MS = 30_000;
const MAX_ATTEMPTS = 3;

export function queueHistoryRefresh(db: Db, userId: string, now: number, delayMs = HISTORY_REFRESH_DELAY_MS) {
  const job = {
    kind: HISTORY_REFRESH_JOB,
    ref: userId,
    payload: { user_id: userId },
    maxAttempts: MAX_ATTEMPTS,
    runAt: now + delayMs,
  };
  return enqueueJobOnce(db, job, now);
}

/** The person's refresh jobs, whatever their state: deleting an account leaves none behind. */
export function forgetHistoryRefresh(db: Db, userId: string): Promise<void> {
  return deleteJobs(db, HISTORY_REFRESH_JOB, [userId]);
}
