// The aggregates the statistics read: quarter hours (migration 0012), recomputed from the rows
// where the triggers marked them dirty, and their sums per local day (migration 0021), summed
// again around the UTC days whose quarter hours changed.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LocationBucketsTable } from '../db/schema.ts';
import { BUCKET_MS } from '../db/migrations/0012_location_history.ts';
import { zonedToUtcIn, type OffsetSpans } from '../lib/time.ts';
import { eachBatch, POSITION } from '../locations/points.repo.ts';
import { markVisitDays } from '../visits/visits.repo.ts';

export { BUCKET_MS };

/** Dirty quarter hours closer than this are recomputed in one pass over the rows between them. */
const RUN_GAP_BUCKETS = 96;
/** At most this many quarter hours (about three weeks) per transaction: writers wait no longer. */
const RUN_MAX_BUCKETS = 2000;

const DAY_MS = 86_400_000;

const bucketOf = (ms: number) => ms - (((ms % BUCKET_MS) + BUCKET_MS) % BUCKET_MS);
const utcDayOf = (ms: number) => Math.floor(ms / DAY_MS);

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
 * Recomputes [start, end) from the rows. Distance is left at 0: it is the trips' (spread over
 * their quarter hours by src/history/trip-distances.repo.ts once visits are detected again).
 * Returns the UTC days whose quarter hours it wrote, for the local days to be summed again.
 */
async function recompute(db: Db, userId: string, start: number, end: number): Promise<number[]> {
  const buckets = new Map<number, LocationBucketsTable>();
  for await (const rows of eachBatch(db, { userId, sinceMs: start, untilMs: end }, POSITION)) {
    for (const row of rows) {
      const point = { time: Number(row.time), lat: row.lat, lon: row.lon };
      const key = bucketOf(point.time);
      let bucket = buckets.get(key);
      if (!bucket) buckets.set(key, (bucket = emptyBucket(userId, key)));
      bucket.points += 1;
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
  const days = [];
  for (let day = utcDayOf(start); day <= utcDayOf(end - 1); day += 1) days.push(day);
  return days;
}

/** What a quarter hour and a day both sum. */
const SUM_COLUMNS = [
  'points',
  'distance_m',
  'min_lat',
  'max_lat',
  'min_lon',
  'max_lon',
  'min_lon360',
  'max_lon360',
] as const;

/** An upsert's update that replaces `columns` with the row being inserted. */
const replacing = (columns: readonly string[]) =>
  Object.fromEntries(columns.map((column) => [column, sql.ref(`excluded.${column}`)]));

const REPLACE_BUCKET = replacing([...SUM_COLUMNS, 'last_time', 'last_lat', 'last_lon']);

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
      const days = await recompute(trx, userId, run.start, run.end);
      await markDaysToSum(trx, userId, days);
      // The same days' visits and trips are detected again (src/visits/visits.refresh.ts).
      await markVisitDays(trx, userId, days);
    });
    await afterRun?.();
  }
  return marks.length;
}

/** Marks UTC days whose local days are summed again; an upsert that updates locks the mark, as location_dirty's do (migration 0012). */
export async function markDaysToSum(db: Db, userId: string, days: Iterable<number>): Promise<void> {
  const values = [...new Set(days)].map((day) => ({ user_id: userId, day }));
  if (values.length === 0) return;
  await db
    .insertInto('location_day_marks')
    .values(values)
    .onConflict((conflict) => conflict.columns(['user_id', 'day']).doUpdateSet({ day: sql.ref('excluded.day') }))
    .execute();
}

/** A day's sums: a quarter hour's, less where it ends. */
export type DayRow = { day: number } & Omit<
  LocationBucketsTable,
  'user_id' | 'bucket' | 'last_time' | 'last_lat' | 'last_lon'
>;

/** A day's row as the drivers give it: PostgreSQL's bigint and numeric sums arrive as text. */
const toDayRow = (row: DayRow): DayRow => ({
  ...row,
  day: Number(row.day),
  points: Number(row.points),
  distance_m: Number(row.distance_m),
});

/** The first and last quarter hour with points in [sinceMs, untilMs), each from one end of the index. */
export async function bucketSpan(
  db: Db,
  userId: string,
  sinceMs: number,
  untilMs: number,
): Promise<{ first: number; last: number } | undefined> {
  const { rows } = await sql<{
    first: number | null;
    last: number | null;
  }>`select
      (select min(bucket) from location_buckets where user_id = ${userId} and bucket >= ${sinceMs} and bucket < ${untilMs}) as first,
      (select max(bucket) from location_buckets where user_id = ${userId} and bucket >= ${sinceMs} and bucket < ${untilMs}) as last`.execute(
    db,
  );
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
  const wall = sql`(${bucket} + ${offset})`;
  const { rows } =
    await sql<DayRow>`select (${wall} - ((${wall} % ${sql.lit(DAY_MS)}) + ${sql.lit(DAY_MS)}) % ${sql.lit(DAY_MS)}) / ${sql.lit(DAY_MS)} as day, sum(points) as points,
      sum(distance_m) as distance_m, min(min_lat) as min_lat, max(max_lat) as max_lat, min(min_lon) as min_lon,
      max(max_lon) as max_lon, min(min_lon360) as min_lon360, max(max_lon360) as max_lon360
    from location_buckets where user_id = ${userId} and ${bucket} >= ${sinceMs} and ${bucket} < ${untilMs}
    group by 1 order by 1`.execute(db);
  return rows.map(toDayRow);
}

const REPLACE_DAY = replacing(SUM_COLUMNS);

/** Sums local days [first, end) again from the quarter hours, replacing what was kept. */
async function resumDays(trx: Db, userId: string, first: number, end: number, spans: OffsetSpans): Promise<void> {
  const rows = await sumDays(
    trx,
    userId,
    zonedToUtcIn(first * DAY_MS, spans),
    zonedToUtcIn(end * DAY_MS, spans),
    spans,
  );
  await trx
    .deleteFrom('location_days')
    .where('user_id', '=', userId)
    .where('day', '>=', first)
    .where('day', '<', end)
    .execute();
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('location_days')
      .values(rows.slice(i, i + 500).map((row) => ({ user_id: userId, ...row })))
      // Another refresh of the same person at once summed the same committed quarter hours.
      .onConflict((conflict) => conflict.columns(['user_id', 'day']).doUpdateSet(REPLACE_DAY))
      .execute();
  }
}

/** Marked UTC days no further apart than this are summed again in one pass. */
const DAY_RUN_GAP = 3;

/**
 * Brings a person's local days up to date with their quarter hours (call refreshBuckets
 * first). `zone` names the time zone and its rules; days summed in another are summed again
 * whole. `spansFor` gives the zone's offsets over a range of UTC instants.
 */
export async function refreshDays(
  db: Db,
  userId: string,
  zone: string,
  spansFor: (startMs: number, endMs: number) => OffsetSpans,
): Promise<void> {
  const kept = await db
    .selectFrom('location_day_zones')
    .select('zone')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (kept?.zone !== zone) {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('location_day_marks').where('user_id', '=', userId).execute();
      await trx.deleteFrom('location_days').where('user_id', '=', userId).execute();
      const span = await bucketSpan(trx, userId, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      if (span) {
        // A local day overlaps the UTC days before and after its own number: no zone is a day off UTC.
        const first = utcDayOf(span.first) - 1;
        const end = utcDayOf(span.last) + 2;
        await resumDays(trx, userId, first, end, spansFor((first - 1) * DAY_MS, (end + 1) * DAY_MS));
      }
      await trx
        .insertInto('location_day_zones')
        .values({ user_id: userId, zone })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ zone }))
        .execute();
    });
    return;
  }
  const marks = await db
    .selectFrom('location_day_marks')
    .select('day')
    .where('user_id', '=', userId)
    .orderBy('day')
    .execute();
  const runs: { first: number; last: number }[] = [];
  for (const day of marks.map((mark) => Number(mark.day))) {
    const last = runs.at(-1);
    if (last && day - last.last <= DAY_RUN_GAP) last.last = day;
    else runs.push({ first: day, last: day });
  }
  for (const run of runs) {
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('location_day_marks')
        .where('user_id', '=', userId)
        .where('day', '>=', run.first)
        .where('day', '<=', run.last)
        .execute();
      const first = run.first - 1;
      const end = run.last + 2;
      await resumDays(trx, userId, first, end, spansFor((first - 1) * DAY_MS, (end + 1) * DAY_MS));
    });
  }
}

/** The kept sums of local days [first, end), in order. */
export async function keptDays(db: Db, userId: string, first: number, end: number): Promise<DayRow[]> {
  const rows = await db
    .selectFrom('location_days')
    .select(['day', ...SUM_COLUMNS])
    .where('user_id', '=', userId)
    .where('day', '>=', first)
    .where('day', '<', end)
    .orderBy('day')
    .execute();
  return rows.map(toDayRow);
}

/** The sums of a run of days (a month or a year): a day's, and how many of its days have points. */
export type PeriodRow = Omit<DayRow, 'day'> & { days_with_data: number };

/**
 * The kept days summed per period, periods given as runs of local days [first, end) in
 * order: one row per period that has kept days, `index` its place in `periods`. Summed in SQL,
 * so a month over ten years reads 120 rows instead of 3,650 (on PostgreSQL, parsing every
 * day's row was most of a request's time).
 */
export async function keptPeriods(
  db: Db,
  userId: string,
  periods: { first: number; end: number }[],
): Promise<(PeriodRow & { index: number })[]> {
  if (periods.length === 0) return [];
  // Cast: PostgreSQL cannot tell the type of a bare parameter in VALUES.
  const bigint = (value: number) => sql`cast(${value} as bigint)`;
  const values = periods.map(
    (period, index) => sql`(${bigint(index)}, ${bigint(period.first)}, ${bigint(period.end)})`,
  );
  const { rows } = await sql<
    PeriodRow & { index: number }
  >`with p (n, first_day, end_day) as (values ${sql.join(values)})
    select p.n as ${sql.ref('index')}, sum(d.points) as points,
      sum(d.distance_m) as distance_m, min(d.min_lat) as min_lat, max(d.max_lat) as max_lat, min(d.min_lon) as min_lon,
      max(d.max_lon) as max_lon, min(d.min_lon360) as min_lon360, max(d.max_lon360) as max_lon360,
      sum(case when d.points > 0 then 1 else 0 end) as days_with_data
    from p join location_days d on d.user_id = ${userId} and d.day >= p.first_day and d.day < p.end_day
    group by p.n order by p.n`.execute(db);
  return rows.map((row) => ({
    ...row,
    index: Number(row.index),
    points: Number(row.points),
    distance_m: Number(row.distance_m),
    days_with_data: Number(row.days_with_data),
  }));
}
