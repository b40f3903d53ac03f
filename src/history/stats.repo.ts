// The quarter-hour aggregates the statistics read (migration 0012): recomputed from the rows
// where the triggers marked them dirty, then summed per local day in SQL.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LocationBucketsTable } from '../db/schema.ts';
import { BUCKET_MS } from '../db/migrations/0012_location_history.ts';
import { segmentM, type TimedPoint } from './geo.ts';
import { eachBatch, pointBefore, timeFrom } from '../locations/points.repo.ts';

export { BUCKET_MS };

/** Dirty quarter hours closer than this are recomputed in one pass over the rows between them. */
const RUN_GAP_BUCKETS = 96;
/** At most this many quarter hours (about three weeks) per transaction: writers wait no longer. */
const RUN_MAX_BUCKETS = 2000;

const bucketOf = (ms: number) => ms - (((ms % BUCKET_MS) + BUCKET_MS) % BUCKET_MS);

function runsOf(buckets: number[]): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  for (const bucket of buckets) {
    const last = runs.at(-1);
    const fits =
      last &&
      bucket - last.end <= RUN_GAP_BUCKETS * BUCKET_MS &&
      bucket + BUCKET_MS - last.start <= RUN_MAX_BUCKETS * BUCKET_MS;
    if (last && fits) last.end = bucket + BUCKET_MS;
    else runs.push({ start: bucket, end: bucket + BUCKET_MS });
  }
  return runs;
}

function emptyBucket(userId: string, bucket: number): LocationBucketsTable {
  return {
    user_id: userId,
    bucket,
    points: 0,
    distance_m: 0,
    min_lat: 90,
    max_lat: -90,
    min_lon: 180,
    max_lon: -180,
    min_lon360: 360,
    max_lon360: 0,
    last_time: 0,
    last_lat: 0,
    last_lon: 0,
  };
}

/**
 * Recomputes [start, end) from the rows, and the first quarter hour with points after it (its
 * first segment starts in this range). A quarter hour counts the segments that end in it.
 */
async function recompute(db: Db, userId: string, start: number, endBefore: number): Promise<void> {
  const next = await timeFrom(db, userId, endBefore);
  const end = next === undefined ? endBefore : Math.max(endBefore, bucketOf(next) + BUCKET_MS);
  let previous: TimedPoint | undefined = await pointBefore(db, userId, start);
  const buckets = new Map<number, LocationBucketsTable>();
  for await (const rows of eachBatch(db, { userId, sinceMs: start, untilMs: end })) {
    for (const row of rows) {
      const point = { time: Number(row.time), lat: row.lat, lon: row.lon };
      const key = bucketOf(point.time);
      let bucket = buckets.get(key);
      if (!bucket) buckets.set(key, (bucket = emptyBucket(userId, key)));
      bucket.points += 1;
      if (previous) bucket.distance_m += segmentM(previous, point);
      const lon360 = point.lon < 0 ? point.lon + 360 : point.lon;
      bucket.min_lat = Math.min(bucket.min_lat, point.lat);
      bucket.max_lat = Math.max(bucket.max_lat, point.lat);
      bucket.min_lon = Math.min(bucket.min_lon, point.lon);
      bucket.max_lon = Math.max(bucket.max_lon, point.lon);
      bucket.min_lon360 = Math.min(bucket.min_lon360, lon360);
      bucket.max_lon360 = Math.max(bucket.max_lon360, lon360);
      bucket.last_time = point.time;
      bucket.last_lat = point.lat;
      bucket.last_lon = point.lon;
      previous = point;
    }
  }
  await db
    .deleteFrom('location_buckets')
    .where('user_id', '=', userId)
    .where('bucket', '>=', start)
    .where('bucket', '<', end)
    .execute();
  const rows = [...buckets.values()];
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('location_buckets')
      .values(rows.slice(i, i + 500))
      // Another refresh may have written the same quarter hour since this one's delete (two
      // refreshes of one person at once): both counted the same committed points.
      .onConflict((conflict) => conflict.columns(['user_id', 'bucket']).doUpdateSet(REPLACE_BUCKET))
      .execute();
  }
}

const REPLACE_BUCKET = Object.fromEntries(
  (
    [
      'points',
      'distance_m',
      'min_lat',
      'max_lat',
      'min_lon',
      'max_lon',
      'min_lon360',
      'max_lon360',
      'last_time',
      'last_lat',
      'last_lon',
    ] as const
  ).map((column) => [column, sql.ref(`excluded.${column}`)]),
);

/**
 * Brings a person's quarter hours up to date with their rows; returns how many were dirty.
 * `afterRun` is called between transactions (the import job renews its lease there). Two
 * refreshes at once (a request, and the worker after an import) may write the same quarter
 * hours: the later write replaces the earlier, both counted from committed points.
 */
export async function refreshBuckets(db: Db, userId: string, afterRun?: () => Promise<unknown>): Promise<number> {
  const marks = await db
    .selectFrom('location_dirty')
    .select('bucket')
    .where('user_id', '=', userId)
    .orderBy('bucket')
    .execute();
  for (const run of runsOf(marks.map((mark) => Number(mark.bucket)))) {
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('location_dirty')
        .where('user_id', '=', userId)
        .where('bucket', '>=', run.start)
        .where('bucket', '<', run.end)
        .execute();
      await recompute(trx, userId, run.start, run.end);
    });
    await afterRun?.();
  }
  return marks.length;
}

/** A day's sums: a quarter hour's, less where it ends. */
export type DayRow = { day: number } & Omit<
  LocationBucketsTable,
  'user_id' | 'bucket' | 'last_time' | 'last_lat' | 'last_lon'
>;

/** The first and last quarter hour with points in [sinceMs, untilMs). */
export async function bucketSpan(
  db: Db,
  userId: string,
  sinceMs: number,
  untilMs: number,
): Promise<{ first: number; last: number } | undefined> {
  const { rows } = await sql<{
    first: number | null;
    last: number | null;
  }>`select min(bucket) as first, max(bucket) as last
    from location_buckets where user_id = ${userId} and bucket >= ${sinceMs} and bucket < ${untilMs}`.execute(db);
  const row = rows[0];
  if (!row || row.first === null || row.last === null) return undefined;
  return { first: Number(row.first), last: Number(row.last) };
}

/**
 * The quarter hours of [sinceMs, untilMs) summed per local day, where `spans` say which offset
 * from UTC holds from when on (ascending; the first covers sinceMs).
 */
export async function sumDays(
  db: Db,
  userId: string,
  sinceMs: number,
  untilMs: number,
  spans: { start: number; offset: number }[],
): Promise<DayRow[]> {
  const bucket = sql.ref('bucket');
  const cases = spans
    .slice(1)
    .map((span, index) => sql`when ${bucket} < ${span.start} then cast(${spans[index]!.offset} as bigint)`);
  const offset =
    cases.length === 0
      ? sql`cast(${spans[0]!.offset} as bigint)`
      : sql`case ${sql.join(cases, sql` `)} else cast(${spans.at(-1)!.offset} as bigint) end`;
  const { rows } = await sql<DayRow>`select (${bucket} + ${offset}) / 86400000 as day, sum(points) as points,
      sum(distance_m) as distance_m, min(min_lat) as min_lat, max(max_lat) as max_lat, min(min_lon) as min_lon,
      max(max_lon) as max_lon, min(min_lon360) as min_lon360, max(max_lon360) as max_lon360
    from location_buckets where user_id = ${userId} and ${bucket} >= ${sinceMs} and ${bucket} < ${untilMs}
    group by 1 order by 1`.execute(db);
  return rows.map((row) => ({
    ...row,
    day: Number(row.day),
    points: Number(row.points),
    distance_m: Number(row.distance_m),
  }));
}
