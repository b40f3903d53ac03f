// Housekeeping as a job of the queue (docs/housekeeping.md), so whichever worker is running
// does it, and one at a time: the job of each period has a fixed id (`housekeeping-<n>`, n the
// number of the period since the epoch), so every worker that schedules it names the same row
// and the insert of a second one does nothing; the queue's lease hands it to one worker. A run
// that ends, well or for good badly, schedules the next period's.
import type { Db } from '../db/database.ts';
import { enqueueJobOnce } from '../jobs/jobs.repo.ts';
import type { JobHandler } from '../jobs/worker.ts';
import { purgeExpired, type HousekeepingDeps, type Purged } from './housekeeping.ts';

export const HOUSEKEEPING_JOB = 'housekeeping';
/** A run that fails is tried again a few times within its period; the next period tries anew. */
const MAX_ATTEMPTS = 3;

export interface HousekeepingJobDeps extends HousekeepingDeps {
  intervalMs: number;
  now?: () => number;
  /** Told what each run removed (the metric). */
  onPurged?: (purged: Purged) => void;
}

/** Makes sure the job of the period that holds `now` exists (due at once); harmless to repeat. */
export async function scheduleHousekeeping(db: Db, now: number, intervalMs: number, next = false): Promise<void> {
  const period = Math.floor(now / intervalMs) + (next ? 1 : 0);
  const runAt = next ? period * intervalMs : now;
  const id = `${HOUSEKEEPING_JOB}-${period}`;
  await enqueueJobOnce(
    db,
    { id, kind: HOUSEKEEPING_JOB, ref: null, payload: {}, maxAttempts: MAX_ATTEMPTS, runAt },
    now,
  );
}

export function housekeepingHandler(deps: HousekeepingJobDeps): JobHandler<Purged> {
  const now = deps.now ?? Date.now;
  return {
    async perform() {
      const purged = await purgeExpired(deps, now());
      deps.onPurged?.(purged);
      return purged;
    },
    async succeeded(trx, _job, _purged, at) {
      await scheduleHousekeeping(trx, at, deps.intervalMs, true);
    },
    async failed(trx, _job, _error, final, at) {
      if (final) await scheduleHousekeeping(trx, at, deps.intervalMs, true);
    },
  };
}
