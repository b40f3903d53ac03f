// GET /locations/stats (docs/history.md "Statistics"): per day, month or year of the owner's
// time zone, from quarter-hour aggregates kept in UTC and their sums per local day. Every
// zone's offset is a whole number of quarter hours, so a local day is a run of them; the days
// are summed in the zone of the settings, and summed again when it changes. A range that cuts
// a day adds up that day's quarter hours within it.
import type { Db } from '../db/database.ts';
import { badRequest } from '../core/errors.ts';
import { getSettings } from '../settings/settings.logic.ts';
import {
  msToSeconds,
  nowMs,
  offsetIn,
  TIME_LIMIT_MESSAGE,
  TIME_LIMIT_MS,
  withinTimeLimit,
  zonedToUtcIn,
  type OffsetSpans,
} from '../lib/time.ts';
import { offsetSpans } from './geo.ts';
import { refreshHistory } from './refresh.ts';
import {
  BUCKET_MS,
  bucketSpan,
  keptDays,
  keptPeriods,
  refreshDays,
  sumDays,
  type DayRow,
  type PeriodRow,
} from './stats.repo.ts';
import type { GroupBy, Stats } from './history.schemas.ts';

const DAY_MS = 86_400_000;

function periodOf(day: number, groupBy: GroupBy): { key: string; startWall: number; endWall: number } {
  const date = new Date(day * DAY_MS);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (groupBy === 'day') {
    return { key: date.toISOString().slice(0, 10), startWall: day * DAY_MS, endWall: (day + 1) * DAY_MS };
  }
  if (groupBy === 'month') {
    return {
      key: date.toISOString().slice(0, 7),
      startWall: Date.UTC(year, month, 1),
      endWall: Date.UTC(year, month + 1, 1),
    };
  }
  return { key: String(year).padStart(4, '0'), startWall: Date.UTC(year, 0, 1), endWall: Date.UTC(year + 1, 0, 1) };
}

/**
 * The box of a group: of the two ways to wrap longitudes (-180..180, or 0..360 which puts the
 * antimeridian inside), the narrower. Exact for a history on one side of the antimeridian or
 * across it; a history going round the whole world gets the whole width.
 */
function bboxOf(rows: PeriodRow[]): [number, number, number, number] {
  let south = 90;
  let north = -90;
  let west = 180;
  let east = -180;
  let west360 = 360;
  let east360 = 0;
  for (const row of rows) {
    south = Math.min(south, row.min_lat);
    north = Math.max(north, row.max_lat);
    west = Math.min(west, row.min_lon);
    east = Math.max(east, row.max_lon);
    west360 = Math.min(west360, row.min_lon360);
    east360 = Math.max(east360, row.max_lon360);
  }
  if (east360 - west360 < east - west) {
    const back = (lon: number) => (lon > 180 ? lon - 360 : lon);
    return [back(west360), south, back(east360), north];
  }
  return [west, south, east, north];
}

/**
 * The zone's offsets over a range change only with the zone's rules (a new Node release), so
 * they are kept, by zone and whole days, for the process's life (at most SPANS_KEPT ranges).
 */
const spansKept = new Map<string, OffsetSpans>();
const SPANS_KEPT = 256;

function cachedSpans(startMs: number, endMs: number, timezone: string) {
  const day = 86_400_000;
  const from = Math.floor(startMs / day) * day;
  const to = Math.ceil(endMs / day) * day;
  const key = `${timezone}\n${from}\n${to}`;
  let spans = spansKept.get(key);
  if (!spans) {
    spans = offsetSpans(from, to, timezone);
    if (spansKept.size >= SPANS_KEPT) spansKept.delete(spansKept.keys().next().value!);
    spansKept.set(key, spans);
  }
  return spans;
}

/**
 * The local days with points in [sinceMs, untilMs), whose quarter hours with points run from
 * `first` to `last`: the kept days [first, end) whole, and a day the range cuts summed from
 * its quarter hours within the range (`head` before the kept days, `tail` after them).
 */
async function daysWithin(
  db: Db,
  userId: string,
  range: { sinceMs: number; untilMs: number; first: number; last: number },
  spans: OffsetSpans,
): Promise<{ head: DayRow[]; first: number; end: number; tail: DayRow[] }> {
  const localDay = (ms: number) => Math.floor((ms + offsetIn(ms, spans)) / DAY_MS);
  const dayStart = (day: number) => zonedToUtcIn(day * DAY_MS, spans);
  let first = localDay(range.first);
  let end = localDay(range.last) + 1;
  const cutHead = dayStart(first) < range.sinceMs;
  const cutTail = dayStart(end) > range.untilMs;
  if (end - first === 1 && (cutHead || cutTail)) {
    return { head: await sumDays(db, userId, range.sinceMs, range.untilMs, spans), first, end: first, tail: [] };
  }
  const head = cutHead ? await sumDays(db, userId, range.sinceMs, dayStart((first += 1)), spans) : [];
  const tail = cutTail ? await sumDays(db, userId, dayStart((end -= 1)), range.untilMs, spans) : [];
  return { head, first, end, tail };
}

/** A day's row as a period's sums. */
const daySums = (row: DayRow): PeriodRow => ({ ...row, days_with_data: row.points > 0 ? 1 : 0 });

function checkRange(sinceS: number | undefined, untilS: number | undefined) {
  for (const [name, value] of [
    ['since_time', sinceS],
    ['until_time', untilS],
  ] as const) {
    if (value !== undefined && !withinTimeLimit(value)) {
      throw badRequest(`${name} ${TIME_LIMIT_MESSAGE}.`, [
        { path: `querystring/${name}`, message: TIME_LIMIT_MESSAGE },
      ]);
    }
  }
}

/**
 * Statistics of the owner's whole history (both scopes, exact). The range is applied at
 * quarter-hour resolution: `since_time` is taken down and `until_time` up to a quarter hour.
 */
export async function locationStats(
  db: Db,
  userId: string,
  params: { group_by: GroupBy; since_time?: number | undefined; until_time?: number | undefined },
): Promise<Stats> {
  checkRange(params.since_time, params.until_time);
  const { timezone } = await getSettings(db, userId);
  await refreshHistory(db, userId, nowMs());
  // The days follow the zone's rules too: a Node release with other rules sums them again.
  await refreshDays(db, userId, `${timezone} ${process.versions.tz ?? ''}`, (start, end) =>
    cachedSpans(start, end, timezone),
  );
  const floor = (ms: number) => Math.floor(ms / BUCKET_MS) * BUCKET_MS;
  const sinceMs = params.since_time === undefined ? -TIME_LIMIT_MS : floor(params.since_time * 1000);
  const untilMs = params.until_time === undefined ? TIME_LIMIT_MS : floor(params.until_time * 1000 + BUCKET_MS - 1);
  const result: Stats = { group_by: params.group_by, timezone, groups: [] };
  const span = await bucketSpan(db, userId, sinceMs, untilMs);
  if (!span) return result;
  // Spans over every period the data touches, a day beyond each end (no zone is a day off UTC),
  // so the periods' bounds are read from them too.
  const spans = cachedSpans(
    periodOf(Math.floor(span.first / DAY_MS) - 1, params.group_by).startWall - DAY_MS,
    periodOf(Math.floor(span.last / DAY_MS) + 1, params.group_by).endWall + DAY_MS,
    timezone,
  );
  const days = await daysWithin(db, userId, { sinceMs, untilMs, first: span.first, last: span.last }, spans);
  // Ascending periods, each with the sums of its parts (a cut day, its kept days).
  const groups: { period: ReturnType<typeof periodOf>; rows: PeriodRow[] }[] = [];
  const add = (period: ReturnType<typeof periodOf>, row: PeriodRow) => {
    const last = groups.at(-1);
    if (last?.period.key === period.key) last.rows.push(row);
    else groups.push({ period, rows: [row] });
  };
  for (const row of days.head) add(periodOf(row.day, params.group_by), daySums(row));
  if (params.group_by === 'day') {
    for (const row of await keptDays(db, userId, days.first, days.end)) add(periodOf(row.day, 'day'), daySums(row));
  } else {
    const periods: ReturnType<typeof periodOf>[] = [];
    for (let day = days.first; day < days.end; day = periods.at(-1)!.endWall / DAY_MS) {
      periods.push(periodOf(day, params.group_by));
    }
    const runs = periods.map((period) => ({
      first: Math.max(days.first, period.startWall / DAY_MS),
      end: Math.min(days.end, period.endWall / DAY_MS),
    }));
    for (const row of await keptPeriods(db, userId, runs)) add(periods[row.index]!, row);
  }
  for (const row of days.tail) add(periodOf(row.day, params.group_by), daySums(row));
  for (const { period, rows } of groups) {
    result.groups.push({
      period: period.key,
      start: msToSeconds(zonedToUtcIn(period.startWall, spans)),
      end: msToSeconds(zonedToUtcIn(period.endWall, spans)),
      points: rows.reduce((sum, row) => sum + row.points, 0),
      distance_m: Math.round(rows.reduce((sum, row) => sum + row.distance_m, 0) * 10) / 10,
      days_with_data: rows.reduce((sum, row) => sum + row.days_with_data, 0),
      bbox: bboxOf(rows),
    });
  }
  return result;
}
