// The signed-in person's own items for the Timeline and Media pages: posts and media of either
// scope, and their location history as visits and trips (never public, so read only when the
// scope asked for is not `public`), newest first, read through each kind's list function as
// their owner. One collection shown: "load more" follows its cursor. Several merged
// (src/views/merge.ts): each is read up to the same instant, and only items newer than the
// horizon, the last one every full page reached, are shown, so nothing is skipped or shown twice
// (the next page starts there). Visits and trips are keyed by their start. Where posts and media
// are shown together, a medium a post shows is left out: it is in its post's card.
import { invalid } from '../core/errors.ts';
import type { Page } from '../items/items.logic.ts';
import type { CollectionParams, Scope } from '../items/items.schemas.ts';
import type { ListContext } from '../items/kinds.ts';
import { TIME_LIMIT_S } from '../lib/time.ts';
import { listMedia } from '../media/media.logic.ts';
import { type Medium } from '../media/media.schemas.ts';
import { listPosts, mediaShownInPosts } from '../posts/posts.logic.ts';
import { type Post } from '../posts/posts.schemas.ts';
import { readsExactly } from '../items/access.ts';
import { deliveriesForPosts } from '../services/deliveries.logic.ts';
import { mergePages } from '../views/merge.ts';
import type { TripJson, VisitJson } from '../visits/visits.schemas.ts';
import { refreshSpans, tripsPage, visitsPage } from './days/spans.ts';
import type { PageContext } from './page.ts';
import { endOfDay } from './time.ts';

export const KINDS = ['posts', 'media', 'locations'] as const;
export const SCOPES = ['public', 'private'] as const;
const PAGE_SIZE = 30;

/** What is read: a kind of item in one scope, or the visits or the trips. */
type Source = { kind: 'posts' | 'media'; scope: Scope } | { kind: 'visits' } | { kind: 'trips' };

export type Entry =
  | { kind: 'posts'; ms: number; item: Post }
  | { kind: 'media'; ms: number; item: Medium }
  | { kind: 'visits'; ms: number; item: VisitJson }
  | { kind: 'trips'; ms: number; item: TripJson };

export interface Query {
  kind?: string;
  scope?: string;
  date?: string;
  before?: string;
  cursor?: string;
}

export const pick = <T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined =>
  allowed.find((a) => a === value);

function pageUrl(query: Record<string, string | undefined>, path = '/'): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

type Rows = { rows: Entry[]; more: boolean; next: string | undefined };

function entries<T extends { id: string }>(page: Page<T>, tag: (item: T) => Entry): Rows {
  return { rows: page.items.map(tag), more: page.next !== undefined, next: page.next };
}

/**
 * One page of the owner's collection of a kind and scope, as GET /<kind>/<scope> reads it for
 * them, or of their visits or trips, as GET /locations/visits and /locations/trips do.
 */
async function ownCollection(ctx: PageContext, source: Source, query: CollectionParams): Promise<Rows> {
  const { db, config, cursors } = ctx;
  const ms = (seconds: number) => Math.round(seconds * 1000);
  if (source.kind === 'visits') {
    return entries(await visitsPage(ctx, query), (item) => ({ kind: 'visits', ms: ms(item.start_time), item }));
  }
  if (source.kind === 'trips') {
    return entries(await tripsPage(ctx, query), (item) => ({ kind: 'trips', ms: ms(item.start_time), item }));
  }
  const owner = { id: ctx.auth.userId, username: ctx.auth.username };
  const list: ListContext<CollectionParams> = {
    owner,
    scope: source.scope,
    query,
    byOwner: true,
    exact: source.scope === 'private' || readsExactly(owner.id, ctx.auth),
    cursors,
  };
  if (source.kind === 'posts') {
    return entries(await listPosts(db, list, deliveriesForPosts), (item) => ({
      kind: 'posts',
      ms: ms(item.time),
      item,
    }));
  }
  return entries(await listMedia(db, config.baseUrl, list), (item) => ({ kind: 'media', ms: ms(item.time), item }));
}

/**
 * The instant a page reads up to, in seconds, refused past the collections' range in the words of
 * their query schema (a date or `before` can name a year after 5000; none names one before 0).
 */
function untilSeconds(untilMs: number): number {
  const seconds = untilMs / 1000;
  if (seconds > TIME_LIMIT_S) {
    throw invalid('The request is invalid', [
      { path: 'querystring/until_time', message: `must be <= ${TIME_LIMIT_S}` },
    ]);
  }
  return seconds;
}

/**
 * One page of the chosen collections, merged newest first, and the link to the next (on the
 * page at `path`, which passes its query back here).
 */
export async function loadOwnItems(
  ctx: PageContext,
  query: Query,
  timezone: string,
  path = '/',
  size = PAGE_SIZE,
): Promise<{ entries: Entry[]; more: string | undefined }> {
  const kind = pick(query.kind, KINDS);
  const scope = pick(query.scope, SCOPES);
  const kinds = kind ? [kind] : KINDS;
  const scopes = scope ? [scope] : SCOPES;
  const sources: Source[] = kinds.flatMap((k): Source[] =>
    k === 'locations'
      ? scope === 'public'
        ? []
        : [{ kind: 'visits' }, { kind: 'trips' }]
      : scopes.map((s) => ({ kind: k, scope: s })),
  );
  const before = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
  const until = before ?? (query.date ? endOfDay(query.date, timezone) : undefined);
  const single = sources.length === 1;
  const params: CollectionParams = { count: size, order: 'desc' };
  // As a query string carries it: a repeated parameter is one text, "a,b".
  if (single && query.cursor) params.cursor = String(query.cursor);
  else if (until !== undefined) params.until_time = untilSeconds(until);
  if (sources.some((source) => source.kind === 'visits')) await refreshSpans(ctx);
  const pages = await Promise.all(sources.map((source) => ownCollection(ctx, source, params)));
  const filter = { kind, scope };
  if (single) {
    const [only] = pages;
    const cursor = only?.next;
    return { entries: only?.rows ?? [], more: cursor ? pageUrl({ ...filter, cursor }, path) : undefined };
  }
  const merged = mergePages(pages, 'desc', (entry) => ({ time: entry.ms, id: entry.item.id }));
  const horizon = merged.horizon?.time;
  let entries = merged.rows;
  if (horizon !== undefined && entries.some((e) => e.ms > horizon)) entries = entries.filter((e) => e.ms > horizon);
  const oldest = entries.at(-1)?.ms;
  const more =
    horizon !== undefined && oldest !== undefined
      ? pageUrl({ ...filter, before: String(Math.min(horizon + 1, oldest)) }, path)
      : undefined;
  // Posts and media together: a post's media are shown in it, not again on their own.
  return { entries: kinds.includes('posts') ? await withoutPostMedia(ctx, entries) : entries, more };
}

/** The entries less the media some post shows (docs/design.md "The web app"). */
async function withoutPostMedia(ctx: PageContext, entries: Entry[]): Promise<Entry[]> {
  const media = entries.flatMap((entry) => (entry.kind === 'media' ? [entry.item.id] : []));
  const inPosts = await mediaShownInPosts(ctx.db, ctx.auth, media);
  return entries.filter((entry) => entry.kind !== 'media' || !inPosts.has(entry.item.id));
}

/** A day holds a few hundred items at most; past this many, the day's page lists the first ones. */
const BETWEEN_MAX = 2000;

/**
 * The owner's posts and media of either scope from `start` to `end` (ms, end exclusive), oldest
 * first: the items of a day (src/web/days/day.page.ts).
 */
export async function ownItemsBetween(ctx: PageContext, start: number, end: number): Promise<Entry[]> {
  const range: CollectionParams = { count: 200, order: 'asc', since_time: start / 1000, until_time: end / 1000 };
  const sources: Source[] = (['posts', 'media'] as const).flatMap((kind) => SCOPES.map((scope) => ({ kind, scope })));
  const read = async (source: Source) => {
    const rows: Entry[] = [];
    let page = await ownCollection(ctx, source, range);
    rows.push(...page.rows);
    while (page.next !== undefined && rows.length < BETWEEN_MAX) {
      page = await ownCollection(ctx, source, { ...range, cursor: page.next });
      rows.push(...page.rows);
    }
    return rows;
  };
  const all = (await Promise.all(sources.map(read))).flat();
  // A medium of a post of the same day is in the post's card; one of a post written another day
  // stays at the time it was taken.
  const shown = new Set(all.flatMap((entry) => (entry.kind === 'posts' ? entry.item.media_ids : [])));
  return all
    .filter((entry) => entry.kind !== 'media' || !shown.has(entry.item.id))
    .sort((a, b) => a.ms - b.ms || (a.item.id < b.item.id ? -1 : 1));
}
