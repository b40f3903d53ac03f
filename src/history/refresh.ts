// Everything derived from a person's points, brought up to date in order (docs/history.md
// "Statistics", "Visits and trips"): the quarter hours from the points, then visits and trips
// for the days whose points changed, then the trips' distances spread over the quarter hours.
// Reads of statistics, day tracks, visits and trips call this first; the `visits` job does it in
// the background after a tracker writes, so a read usually finds nothing left to do.
import type { Db } from '../db/database.ts';
import { oneAtATime } from '../lib/one-at-a-time.ts';
import { refreshVisits } from '../visits/visits.refresh.ts';
import { refreshBuckets } from './stats.repo.ts';
import { spreadTripDistances } from './trip-distances.repo.ts';

/** Per database, the reads' refreshes of each person, one at a time. */
const readsRefreshing = new WeakMap<Db, (userId: string, work: () => Promise<void>) => Promise<void>>();

/**
 * `afterRun` is called between transactions (a job renews its lease there); a call without it
 * (a read) shares the refresh of the person that other reads in this process asked for at the
 * same time, as long as it starts after the call (src/lib/one-at-a-time.ts), instead of
 * redoing the same quarter hours and days beside it: an app that reads a day's track, its
 * visits and the statistics at once refreshes once.
 */
export async function refreshHistory(
  db: Db,
  userId: string,
  now: number,
  afterRun?: () => Promise<unknown>,
): Promise<void> {
  if (afterRun) return refreshNow(db, userId, now, afterRun);
  let refreshing = readsRefreshing.get(db);
  if (!refreshing) readsRefreshing.set(db, (refreshing = oneAtATime<string>()));
  return refreshing(userId, () => refreshNow(db, userId, now));
}

async function refreshNow(db: Db, userId: string, now: number, afterRun?: () => Promise<unknown>): Promise<void> {
  await refreshBuckets(db, userId, afterRun);
  for (const redone of await refreshVisits(db, userId, now, afterRun)) {
    await db.transaction().execute((trx) => spreadTripDistances(trx, userId, redone.sinceMs, redone.untilMs));
  }
}
