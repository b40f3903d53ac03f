// The person's visits and trips for the pages, read through the functions the API's routes call
// (src/visits/visits.logic.ts), after bringing the detection up to date as those routes do
// (docs/api.md "Visits and trips": reads never show stale results).
import { refreshHistory } from '../../history/refresh.ts';
import type { Page } from '../../items/items.logic.ts';
import { COUNT_MAX, type CollectionParams } from '../../items/items.schemas.ts';
import { nowMs } from '../../lib/time.ts';
import { listTrips, listVisits } from '../../visits/visits.logic.ts';
import type { TripJson, VisitJson, VisitsParams } from '../../visits/visits.schemas.ts';
import type { PageContext } from '../page.ts';

/** Detects the days whose points changed since the last detection (usually none: a job did it). */
export function refreshSpans(ctx: PageContext): Promise<void> {
  return refreshHistory(ctx.db, ctx.auth.userId, nowMs());
}

const spanParams = (query: CollectionParams): VisitsParams => ({
  count: query.count,
  order: query.order,
  ...(query.since_time === undefined ? {} : { since_time: query.since_time }),
  ...(query.until_time === undefined ? {} : { until_time: query.until_time }),
  ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
});

/** One page of the visits that start before `until_time`, by start. */
export function visitsPage(ctx: PageContext, query: CollectionParams): Promise<Page<VisitJson>> {
  return listVisits(ctx.db, ctx.auth, spanParams(query), ctx.cursors);
}

/** One page of the trips that start before `until_time`, by start. */
export function tripsPage(ctx: PageContext, query: CollectionParams): Promise<Page<TripJson>> {
  return listTrips(ctx.db, ctx.auth, spanParams(query), ctx.cursors);
}

/** A day has a few dozen spans; this many pages of COUNT_MAX is more than any stretch of days holds. */
const PAGES_MAX = 20;

async function everyPage<T>(read: (query: CollectionParams) => Promise<Page<T>>, range: CollectionParams) {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGES_MAX; page += 1) {
    const { items, next } = await read(cursor === undefined ? range : { ...range, cursor });
    all.push(...items);
    if (next === undefined) break;
    cursor = next;
  }
  return all;
}

export interface Spans {
  visits: VisitJson[];
  trips: TripJson[];
}

/** The visits and trips overlapping `[start, end)` (ms), oldest first (call refreshSpans first). */
export async function spansBetween(ctx: PageContext, start: number, end: number): Promise<Spans> {
  const range: CollectionParams = { count: COUNT_MAX, order: 'asc', since_time: start / 1000, until_time: end / 1000 };
  const [visits, trips] = await Promise.all([
    everyPage((query) => visitsPage(ctx, query), range),
    everyPage((query) => tripsPage(ctx, query), range),
  ]);
  return { visits, trips };
}
