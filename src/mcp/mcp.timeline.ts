// What the assistant's reading tools put together from the same logic functions the REST reads
// call (docs/mcp.md "Tools"): a day or a range of the person's life, and where they were at an
// instant. Nothing here reads the database itself or decides who sees what: each piece comes
// from its own feature's logic with the caller's Auth, under the same scope rules.
import type { Auth } from '../core/caller.ts';
import type { Cursors } from '../core/cursors.ts';
import { badRequest } from '../core/errors.ts';
import type { Db } from '../db/database.ts';
import { readableScopes, readsExactly, readsPrivate } from '../items/access.ts';
import type { Page } from '../items/items.logic.ts';
import type { CollectionParams, Scope } from '../items/items.schemas.ts';
import type { ListContext } from '../items/kinds.ts';
import { nowMs, zonedToUtc } from '../lib/time.ts';
import { listLocations } from '../locations/locations.logic.ts';
import type { Location } from '../locations/locations.schemas.ts';
import { listMedia } from '../media/media.logic.ts';
import type { Medium } from '../media/media.schemas.ts';
import { countryName } from '../places/country.ts';
import { labelOf } from '../places/label.ts';
import { listPosts, type DeliveriesOf } from '../posts/posts.logic.ts';
import type { Post } from '../posts/posts.schemas.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { listTrips, listVisits } from '../visits/visits.logic.ts';
import type { TripJson, VisitJson } from '../visits/visits.schemas.ts';

/** What a reading tool needs besides the caller. */
export interface ReadDeps {
  db: Db;
  baseUrl: string;
  cursors: Cursors;
  deliveriesOf: DeliveriesOf;
  /** Brings visits and trips up to date with the points (src/history/refresh.ts), as the REST reads do. */
  refresh: (db: Db, userId: string, now: number) => Promise<void>;
}

/** Most items of one kind a timeline shows; `truncated` says when there were more. */
export const TIMELINE_MAX = 200;
/** The longest range a timeline covers. */
export const RANGE_MAX_DAYS = 366;

export interface Range {
  sinceMs: number;
  untilMs: number;
  timezone: string;
}

/** An instant from an ISO 8601 date-time (with Z or an offset, or local to `timezone`) or date. */
export function instantOf(text: string, timezone: string, field: string): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date) return zonedToUtc(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])), timezone);
  const zoned = /(Z|[+-]\d{2}:\d{2})$/i.test(text);
  const ms = Date.parse(zoned ? text : `${text}Z`);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || Number.isNaN(ms)) {
    throw badRequest(`${field} must be an ISO 8601 date (YYYY-MM-DD) or date-time.`, [
      { path: `arguments/${field}`, message: 'is not an ISO 8601 date or date-time' },
    ]);
  }
  return zoned ? ms : zonedToUtc(ms, timezone);
}

/** A day (`date`) or a range (`start` to `end`, end exclusive) in the person's time zone. */
export async function rangeOf(
  db: Db,
  auth: Auth,
  input: { date?: string | undefined; start?: string | undefined; end?: string | undefined },
): Promise<Range> {
  const { timezone } = await getSettings(db, auth.userId);
  if (input.date !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(input.date)) {
      throw badRequest('date must be a day, YYYY-MM-DD.', [{ path: 'arguments/date', message: 'is not YYYY-MM-DD' }]);
    }
    const sinceMs = instantOf(input.date, timezone, 'date');
    const [y, m, d] = input.date.split('-').map(Number) as [number, number, number];
    return { sinceMs, untilMs: zonedToUtc(Date.UTC(y, m - 1, d + 1), timezone), timezone };
  }
  if (input.start === undefined || input.end === undefined) {
    throw badRequest('Give a date, or both start and end.', [
      { path: 'arguments', message: 'needs date, or start and end' },
    ]);
  }
  const sinceMs = instantOf(input.start, timezone, 'start');
  const untilMs = instantOf(input.end, timezone, 'end');
  if (untilMs <= sinceMs || untilMs - sinceMs > RANGE_MAX_DAYS * 86_400_000) {
    throw badRequest(`end must be after start, at most ${RANGE_MAX_DAYS} days later.`, [
      { path: 'arguments/end', message: `must be after start and within ${RANGE_MAX_DAYS} days` },
    ]);
  }
  return { sinceMs, untilMs, timezone };
}

const rangeParams = (range: Range, count: number): CollectionParams => ({
  count,
  order: 'asc',
  since_time: range.sinceMs / 1000,
  until_time: range.untilMs / 1000,
});

/** The owner's collection of each scope the caller reads, as `GET /<kind>/public|private` list them, oldest first. */
async function ownItems<T extends { time: number; id: string }>(
  auth: Auth,
  cursors: Cursors,
  query: CollectionParams,
  list: (ctx: ListContext<CollectionParams>) => Promise<Page<T>>,
  scope?: Scope,
): Promise<{ items: T[]; truncated: boolean }> {
  const owner = { id: auth.userId, username: auth.username };
  const scopes = scope ? [scope] : readableScopes(auth);
  const pages = await Promise.all(
    scopes.map((s) =>
      list({
        owner,
        scope: s,
        query,
        byOwner: true,
        // The private collection is exact; the public one as its REST read shows it to this caller.
        exact: s === 'private' || readsExactly(owner.id, auth),
        cursors,
      }),
    ),
  );
  const items = pages
    .flatMap((page) => page.items)
    .sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const count = query.count ?? 50;
  const truncated = pages.some((page) => page.next !== undefined) || items.length > count;
  // Each scope's page holds its first `count` in the query's order: newest ones for `desc`, so
  // the union keeps its newest `count` then, and its oldest for `asc`.
  return { items: query.order === 'desc' ? items.slice(-count) : items.slice(0, count), truncated };
}

export interface Timeline {
  timezone: string;
  start: string;
  end: string;
  posts: Post[];
  media: Medium[];
  /** Only with `get_private_scope` (visits and trips are never public); otherwise absent. */
  visits?: VisitJson[];
  trips?: TripJson[];
  /** Kinds that had more than TIMELINE_MAX items in the range. */
  truncated: string[];
}

export async function timeline(deps: ReadDeps, auth: Auth, range: Range): Promise<Timeline> {
  const { db, baseUrl, cursors } = deps;
  const query = rangeParams(range, TIMELINE_MAX);
  const posts = await ownItems(auth, cursors, query, (ctx) => listPosts(db, ctx, deps.deliveriesOf));
  const media = await ownItems(auth, cursors, query, (ctx) => listMedia(db, baseUrl, ctx));
  const out: Timeline = {
    timezone: range.timezone,
    start: new Date(range.sinceMs).toISOString(),
    end: new Date(range.untilMs).toISOString(),
    posts: posts.items,
    media: media.items,
    truncated: [...(posts.truncated ? ['posts'] : []), ...(media.truncated ? ['media'] : [])],
  };
  if (readsPrivate(auth)) {
    await deps.refresh(db, auth.userId, nowMs());
    const visits = await listVisits(db, auth, query, cursors);
    const trips = await listTrips(db, auth, query, cursors);
    out.visits = visits.items;
    out.trips = trips.items;
    if (visits.next) out.truncated.push('visits');
    if (trips.next) out.truncated.push('trips');
  }
  return out;
}

/** One page of the caller's media, of the scopes it reads, as `list_media` shows them. */
export async function mediaPage(
  deps: ReadDeps,
  auth: Auth,
  input: { range?: Range | undefined; scope?: Scope | undefined; kind?: Medium['kind'] | undefined; count: number },
): Promise<{ media: Medium[]; truncated: boolean }> {
  if (input.scope === 'private' && !readsPrivate(auth)) return { media: [], truncated: false };
  const query: CollectionParams = input.range
    ? rangeParams(input.range, input.count)
    : { count: input.count, order: 'desc' };
  const { items, truncated } = await ownItems(
    auth,
    deps.cursors,
    query,
    (ctx) => listMedia(deps.db, deps.baseUrl, ctx, input.kind),
    input.scope,
  );
  return { media: input.range ? items : items.reverse(), truncated };
}

export interface WhereWasI {
  time: string;
  /** The stay that covers the instant, with its place. */
  visit: VisitJson | null;
  /** Without a stay: the recorded point nearest in time, and how far from the instant. */
  nearest_point: (Location & { seconds_away: number }) | null;
  /** The town and country of the visit's place or the point, found offline. */
  place: { name: string | null; city: string | null; country: string | null; country_code: string | null } | null;
}

/** Where the person was at `atMs`: the visit then, else the nearest recorded point. Needs `get_private_scope`. */
export async function whereWasI(deps: ReadDeps, auth: Auth, atMs: number): Promise<WhereWasI> {
  const { db, cursors } = deps;
  await deps.refresh(db, auth.userId, nowMs());
  const at = atMs / 1000;
  // A visit overlapping the instant: it ends after it and starts before the next millisecond.
  const visits = await listVisits(
    db,
    auth,
    { count: 1, order: 'asc', since_time: at, until_time: at + 0.001 },
    cursors,
  );
  const visit = visits.items[0] ?? null;
  const time = new Date(atMs).toISOString();
  if (visit) {
    const label = visit.place.city === null || visit.place.country === null ? labelOf(visit.lat, visit.lon) : undefined;
    const code = visit.place.country ?? label?.country ?? null;
    return {
      time,
      visit,
      nearest_point: null,
      place: {
        name: visit.place.name,
        city: visit.place.city ?? label?.city ?? null,
        country: code === null ? null : countryName(code),
        country_code: code,
      },
    };
  }
  const list = (ctx: ListContext<CollectionParams>) => listLocations(db, ctx);
  const before = await ownItems(auth, cursors, { count: 1, order: 'desc', until_time: at + 0.001 }, list);
  const after = await ownItems(auth, cursors, { count: 1, order: 'asc', since_time: at }, list);
  const candidates = [before.items.at(-1), after.items[0]].filter((point) => point !== undefined);
  const nearest = candidates.sort((a, b) => Math.abs(a.time - at) - Math.abs(b.time - at))[0];
  if (!nearest) return { time, visit: null, nearest_point: null, place: null };
  const label = labelOf(nearest.lat, nearest.lon);
  return {
    time,
    visit: null,
    nearest_point: { ...nearest, seconds_away: Math.round(Math.abs(nearest.time - at)) },
    place: { name: null, city: label.city, country: label.countryName, country_code: label.country },
  };
}
