// The `visits` job (src/locations/refresh.jobs.ts): a person's statistics, visits and trips
// brought up to date in the background, so the next read finds nothing to do. Failing is the
// database's doing; the marks stay and the next read or job does the work.
import type { Db } from '../db/database.ts';
import type { Job, JobHandler } from '../jobs/worker.ts';
import { queueHistoryRefresh } from '../locations/refresh.jobs.ts';
import { peopleWithMarks } from '../visits/visits.repo.ts';
import { refreshHistory } from './refresh.ts';

export function historyRefreshHandler(deps: { db: Db; now?: () => number }): JobHandler<null> {
  const now = deps.now ?? Date.now;
  return {
    async perform(job: Job) {
      const { user_id: userId } = job.payload as { user_id: string };
      await refreshHistory(deps.db, userId, now(), () => job.renewLease(deps.db));
      return null;
    },
    async succeeded() {},
    async failed() {},
  };
}

/** At start: a job for everyone with days still to detect (after an upgrade, all their days). */
export async function queueMarkedPeople(db: Db, now: number): Promise<void> {
  for (const userId of await peopleWithMarks(db)) await queueHistoryRefresh(db, userId, now, 0);
}
