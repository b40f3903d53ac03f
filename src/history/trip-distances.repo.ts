// The statistics' distance is the trips' (docs/history.md "Statistics"): each trip's distance is
// spread over the quarter hours it spans that hold points, in proportion to the time it spends
// in each, so a day, a month or a year adds up what was travelled in it and nothing across a gap.
import type { Db } from '../db/database.ts';
import { BUCKET_MS } from '../db/migrations/0012_location_history.ts';
import { markDaysToSum } from './stats.repo.ts';

const DAY_MS = 86_400_000;
const floorBucket = (ms: number) => Math.floor(ms / BUCKET_MS) * BUCKET_MS;

/** The trips that overlap [sinceMs, untilMs), oldest first. */
export async function tripsWithin(
  db: Db,
  userId: string,
  sinceMs: number,
  untilMs: number,
): Promise<{ start: number; end: number; distance: number }[]> {
  const rows = await db
    .selectFrom('trips')
    .select(['start_time', 'end_time', 'distance_m'])
    .where('user_id', '=', userId)
    .where('start_time', '<', untilMs)
    .where('end_time', '>', sinceMs)
    .orderBy('start_time')
    .execute();
  return rows.map((trip) => ({
    start: Number(trip.start_time),
    end: Number(trip.end_time),
    distance: Number(trip.distance_m),
  }));
}

/** Spreads the distances of the trips in [sinceMs, untilMs) again, and marks their days to sum. */
export async function spreadTripDistances(db: Db, userId: string, sinceMs: number, untilMs: number): Promise<void> {
  // Widened to whole trips: trips never overlap, so one step takes in every trip it cuts.
  const trips = await tripsWithin(db, userId, sinceMs, untilMs);
  const first = floorBucket(Math.min(sinceMs, trips[0]?.start ?? sinceMs));
  const end = floorBucket(Math.max(untilMs, trips.at(-1)?.end ?? untilMs)) + BUCKET_MS;
  const buckets = (
    await db
      .selectFrom('location_buckets')
      .select('bucket')
      .where('user_id', '=', userId)
      .where('bucket', '>=', first)
      .where('bucket', '<', end)
      .orderBy('bucket')
      .execute()
  ).map((row) => Number(row.bucket));
  const distances = new Map<number, number>(buckets.map((bucket) => [bucket, 0]));
  for (const trip of trips) {
    const spans = buckets
      .filter((bucket) => bucket + BUCKET_MS > trip.start && bucket <= trip.end)
      .map((bucket) => ({
        bucket,
        // A trip of no duration (or one point's quarter hour) weighs each quarter hour alike.
        weight: Math.max(1, Math.min(bucket + BUCKET_MS, trip.end) - Math.max(bucket, trip.start)),
      }));
    const total = spans.reduce((sum, span) => sum + span.weight, 0);
    for (const { bucket, weight } of spans)
      distances.set(bucket, distances.get(bucket)! + (trip.distance * weight) / total);
  }
  for (const [bucket, distance] of distances) {
    await db
      .updateTable('location_buckets')
      .set({ distance_m: distance })
      .where('user_id', '=', userId)
      .where('bucket', '=', bucket)
      .where('distance_m', '<>', distance)
      .execute();
  }
  const days = new Set<number>();
  for (let day = Math.floor(first / DAY_MS); day <= Math.floor((end - 1) / DAY_MS); day += 1) days.add(day);
  await markDaysToSum(db, userId, days);
}
