// SQL for visits, trips, corrections, the detector's own visits and the days to detect again
// (migrations 0033 and 0037). Ids are derived from the start (`v…`, `t…`, base 36
// milliseconds), so detecting a day again gives a stay that did not change the id it had.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PageQuery } from '../items/items.repo.ts';
import type { TripsTable, VisitCorrectionsTable, VisitsTable } from '../db/schema.visits.ts';
import type { Span } from './window.ts';

export type VisitRow = VisitsTable;
export type TripRow = TripsTable;
export type CorrectionRow = VisitCorrectionsTable;

export const visitId = (startMs: number) => `v${startMs.toString(36)}`;
export const tripId = (startMs: number) => `t${startMs.toString(36)}`;

const DAY_MS = 86_400_000;

/** Rows come back with bigint columns as text on PostgreSQL. */
const timed = <T extends { start_time: number; end_time: number }>(row: T): T => ({
  ...row,
  start_time: Number(row.start_time),
  end_time: Number(row.end_time),
});

/** The marked UTC days of a person, ascending. */
export async function visitMarks(db: Db, userId: string): Promise<number[]> {
  const rows = await db.selectFrom('visit_marks').select('day').where('user_id', '=', userId).orderBy('day').execute();
  return rows.map((row) => Number(row.day));
}

export async function clearVisitMarks(db: Db, userId: string, firstDay: number, lastDay: number): Promise<void> {
  await db
    .deleteFrom('visit_marks')
    .where('user_id', '=', userId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .execute();
}

/** Marks UTC days to detect again; an upsert that updates, so it locks a mark being cleared. */
export async function markVisitDays(db: Db, userId: string, days: Iterable<number>): Promise<void> {
  const values = [...new Set(days)].map((day) => ({ user_id: userId, day }));
  for (let i = 0; i < values.length; i += 500) {
    await db
      .insertInto('visit_marks')
      .values(values.slice(i, i + 500))
      .onConflict((conflict) => conflict.columns(['user_id', 'day']).doUpdateSet({ day: sql.ref('excluded.day') }))
      .execute();
  }
}

/** The people with days to detect, for the job scheduled at start. */
export async function peopleWithMarks(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('visit_marks').select('user_id').distinct().execute();
  return rows.map((row) => row.user_id);
}

/**
 * The detector's visits around a change from `fromMs` to `toMs` (docs/history.md "Stored, and
 * refreshed where the points changed"): the latest three to start at or before `fromMs`, and
 * the first three to end at or after `toMs`, each oldest first. Spans never overlap, so only
 * the last to start before `toMs` can reach past it: a few rows from each end of the index.
 */
export async function spansAround(
  db: Db,
  userId: string,
  fromMs: number,
  toMs: number,
): Promise<{ before: Span[]; after: Span[] }> {
  const spans = db.selectFrom('visit_spans').select(['start_time', 'end_time']).where('user_id', '=', userId);
  const before = await spans.where('start_time', '<=', fromMs).orderBy('start_time', 'desc').limit(3).execute();
  const reaching = await spans.where('start_time', '<', toMs).orderBy('start_time', 'desc').limit(1).execute();
  const later = await spans.where('start_time', '>=', toMs).orderBy('start_time').limit(3).execute();
  const span = (row: { start_time: number; end_time: number }) => ({
    start: Number(row.start_time),
    end: Number(row.end_time),
  });
  return {
    before: before.map(span).reverse(),
    after: [...reaching.map(span).filter((s) => s.end >= toMs), ...later.map(span)].slice(0, 3),
  };
}

/** Replaces the detector's visits that start in [sinceMs, untilMs) with `spans`. */
export async function replaceSpans(
  db: Db,
  userId: string,
  range: { sinceMs: number; untilMs: number },
  spans: readonly Span[],
): Promise<void> {
  await db
    .deleteFrom('visit_spans')
    .where('user_id', '=', userId)
    .where('start_time', '>=', range.sinceMs)
    .where('start_time', '<', range.untilMs)
    .execute();
  const rows = spans.map((s) => ({ user_id: userId, start_time: s.start, end_time: s.end }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('visit_spans')
      .values(rows.slice(i, i + 500))
      .execute();
}

/** The earliest start and the latest end of the person's stored visits and trips, if any. */
export async function storedExtent(db: Db, userId: string): Promise<{ first: number; last: number } | undefined> {
  let extent: { first: number; last: number } | undefined;
  for (const table of ['visits', 'trips'] as const) {
    const rows = db.selectFrom(table).where('user_id', '=', userId);
    const first = await rows.select('start_time').orderBy('start_time').limit(1).executeTakeFirst();
    // Neither overlaps among itself: the last to start is the last to end.
    const last = await rows.select('end_time').orderBy('start_time', 'desc').limit(1).executeTakeFirst();
    if (!first || !last) continue;
    extent = {
      first: Math.min(extent?.first ?? Infinity, Number(first.start_time)),
      last: Math.max(extent?.last ?? -Infinity, Number(last.end_time)),
    };
  }
  return extent;
}

/**
 * Replaces the visits and trips that start in [sinceMs, untilMs) with `visits` and `trips`;
 * returns the places the replaced visits were at.
 */
export async function replaceDetected(
  db: Db,
  userId: string,
  range: { sinceMs: number; untilMs: number },
  visits: readonly VisitRow[],
  trips: readonly TripRow[],
): Promise<string[]> {
  const before = await db
    .selectFrom('visits')
    .select('place_id')
    .distinct()
    .where('user_id', '=', userId)
    .where('start_time', '>=', range.sinceMs)
    .where('start_time', '<', range.untilMs)
    .execute();
  for (const table of ['visits', 'trips'] as const) {
    await db
      .deleteFrom(table)
      .where('user_id', '=', userId)
      .where('start_time', '>=', range.sinceMs)
      .where('start_time', '<', range.untilMs)
      .execute();
  }
  for (let i = 0; i < visits.length; i += 500)
    await db
      .insertInto('visits')
      .values(visits.slice(i, i + 500))
      .execute();
  for (let i = 0; i < trips.length; i += 500)
    await db
      .insertInto('trips')
      .values(trips.slice(i, i + 500))
      .execute();
  return before.map((row) => row.place_id);
}

/** Every visit or trip overlapping [sinceMs, untilMs), oldest first (a year holds thousands). */
export async function spansBetween<T extends 'visits' | 'trips'>(
  db: Db,
  table: T,
  userId: string,
  range: { sinceMs: number; untilMs: number },
) {
  const page = { count: Number.MAX_SAFE_INTEGER - 1, order: 'asc' as const, ...range, after: undefined };
  return (await selectSpanPage(db, table, userId, page)).rows;
}

export async function findVisitRow(db: Db, userId: string, id: string): Promise<VisitRow | undefined> {
  const row = await db
    .selectFrom('visits')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && timed(row);
}

/** Corrections touching [sinceMs, untilMs), in the order they were made. */
export async function correctionsBetween(
  db: Db,
  userId: string,
  range: { sinceMs: number; untilMs: number },
): Promise<CorrectionRow[]> {
  const rows = await db
    .selectFrom('visit_corrections')
    .selectAll()
    .where('user_id', '=', userId)
    .where('start_time', '<', range.untilMs)
    .where('end_time', '>=', range.sinceMs)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(timed);
}

export async function insertCorrection(db: Db, row: CorrectionRow): Promise<void> {
  await db.insertInto('visit_corrections').values(row).execute();
}

/** Every correction of the person, in the order they were made (the export's). */
export async function allCorrectionRows(db: Db, userId: string): Promise<CorrectionRow[]> {
  const rows = await db
    .selectFrom('visit_corrections')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...timed(row), created_at: Number(row.created_at) }));
}

/** The UTC days of the stored visits that touch [sinceMs, untilMs]: detected again after a correction came in. */
export async function markVisitDaysTouching(db: Db, userId: string, sinceMs: number, untilMs: number): Promise<void> {
  const day = sql<number>`cast(floor(start_time / 86400000.0) as integer)`;
  await sql`insert into visit_marks (user_id, day)
    select distinct ${userId}, ${day} from visits
      where user_id = ${userId} and start_time <= ${untilMs} and end_time >= ${sinceMs}
    on conflict do nothing`.execute(db);
}

/** UTC days from one instant to another, both included. */
export function daysBetween(fromMs: number, toMs: number): number[] {
  const days: number[] = [];
  for (let day = Math.floor(fromMs / DAY_MS); day <= Math.floor(toMs / DAY_MS); day += 1) days.push(day);
  return days;
}

/**
 * Sets `from_visit_id` and `to_visit_id` of the trips that touch [sinceMs, untilMs] by time: the
 * detector starts a trip where a visit ends and ends it where the next starts, so the rows find
 * each other across the edges of what one detection wrote.
 */
export async function relinkTrips(db: Db, userId: string, sinceMs: number, untilMs: number): Promise<void> {
  await sql`update trips set
      from_visit_id = (select v.id from visits v
        where v.user_id = trips.user_id and v.end_time = trips.start_time limit 1),
      to_visit_id = (select v.id from visits v
        where v.user_id = trips.user_id and v.start_time = trips.end_time limit 1)
    where user_id = ${userId} and end_time >= ${sinceMs} and start_time <= ${untilMs}`.execute(db);
}

/** A keyset page by (start_time, id) of the visits or trips overlapping the range. */
export async function selectSpanPage<T extends 'visits' | 'trips'>(
  db: Db,
  table: T,
  userId: string,
  page: PageQuery,
): Promise<{ rows: (T extends 'visits' ? VisitRow : TripRow)[]; more: boolean }> {
  const direction = sql.raw(page.order === 'desc' ? 'desc' : 'asc');
  const conditions = [sql`user_id = ${userId}`];
  if (page.sinceMs !== undefined) conditions.push(sql`end_time > ${page.sinceMs}`);
  if (page.untilMs !== undefined) conditions.push(sql`start_time < ${page.untilMs}`);
  if (page.after) {
    const op = sql.raw(page.order === 'desc' ? '<' : '>');
    conditions.push(sql`(start_time, id) ${op} (${page.after.time}, ${page.after.id})`);
  }
  const { rows } = await sql<T extends 'visits' ? VisitRow : TripRow>`select * from ${sql.table(table)}
    where ${sql.join(conditions, sql` and `)}
    order by start_time ${direction}, id ${direction} limit ${page.count + 1}`.execute(db);
  const typed = rows.map((row) => ({
    ...timed(row),
    ...('distance_m' in row ? { distance_m: Number(row.distance_m) } : {}),
  }));
  return { rows: typed.slice(0, page.count), more: rows.length > page.count };
}

/** The places first visited in [sinceMs, untilMs), with when, oldest first. */
export async function placesFirstVisited(
  db: Db,
  userId: string,
  sinceMs: number,
  untilMs: number,
): Promise<{ place_id: string; first: number }[]> {
  const { rows } = await sql<{ place_id: string; first: number }>`select place_id, min(start_time) as first
    from visits where user_id = ${userId} group by place_id
    having min(start_time) >= ${sinceMs} and min(start_time) < ${untilMs} order by first, place_id`.execute(db);
  return rows.map((row) => ({ place_id: row.place_id, first: Number(row.first) }));
}
