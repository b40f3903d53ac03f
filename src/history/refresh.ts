// Everything derived from a person's points, brought up to date in order (docs/history.md
// "Statistics", "Visits and trips"): the quarter hours from the points, then visits and trips
// for the days whose points changed, then the trips' distances spread over the quarter hours.
// Reads of statistics, day tracks, visits and trips call this first; the `visits` job does it in
// the background after a tracker writes, so a read usually finds nothing left to do.
import type { Db } from '../db/database.ts';
import { refreshVisits } from '../visits/visits.refresh.ts';
import { refreshBuckets } from './stats.repo.ts';
import { spreadTripDistances } from './trip-distances.repo.ts';

export async function refreshHistory(
  db: Db,
  userId: string,
  now: number,
  afterRun?: () => Promise<unknown>,
): Promise<void> {
  await refreshBuckets(db, userId, afterRun);
  for (const redone of await refreshVisits(db, userId, now, afterRun)) {
    await db.transaction().execute((trx) => spreadTripDistances(trx, userId, redone.sinceMs, redone.untilMs));
  }
}
