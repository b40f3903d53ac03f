// The signed-in person's own items for the Timeline and Media pages: posts, media and locations
// of either scope, newest first, read through each kind's list function as their owner.
// One collection shown: "load more" follows its cursor. Several merged (src/views/merge.ts):
// each is read up to the same instant, and only items newer than the horizon, the last one every
// full page reached, are shown, so nothing is skipped or shown twice (the next page starts there).
import { invalid } from '../core/errors.ts';
import type { Page } from '../items/items.logic.ts';
import type { CollectionParams, Scope } from '../items/items.schemas.ts';
import type { ListContext } from '../items/kinds.ts';
import { TIME_LIMIT_S } from '../lib/time.ts';
import { listLocations } from '../locations/locations.logic.ts';
import { type Location } from '../locations/locations.schemas.ts';
import { listMedia } from '../media/media.logic.ts';
import { type Medium } from '../media/media.schemas.ts';
import { listPosts } from '../posts/posts.logic.ts';
import { type Post } from '../posts/posts.schemas.ts';
import { readsExactly } from '../items/access.ts';
import { deliveriesForPosts } from '../services/deliveries.logic.ts';
import { mergePages } from '../views/merge.ts';
import type { PageContext } from './page.ts';
import { endOfDay } from './time.ts';

export const KINDS = ['posts', 'media', 'locations'] as const;
export const SCOPES = ['public', 'private'] as const;
const PAGE_SIZE = 30;

type Kind = (typeof KINDS)[number];

export type Entry =
  | { kind: 'posts'; ms: number; item: Post }
  | { kind: 'media'; ms: number; item: Medium }
  | { kind: 'locations'; ms: number; item: Location };

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

/** One page of the owner's collection of a kind and scope, as GET /<kind>/<scope> reads it for them. */
async function ownCollection(
  ctx: PageContext,
  kind: Kind,
  scope: Scope,
  query: CollectionParams,
): Promise<{ rows: Entry[]; more: boolean; next: string | undefined }> {
  const { db, config, cursors } = ctx;
  const owner = { id: ctx.auth.userId, username: ctx.auth.username };
  const list: ListContext<CollectionParams> = {
    owner,
    scope,
    query,
    byOwner: true,
    exact: scope === 'private' || readsExactly(owner.id, ctx.auth),
    cursors,
  };
  const entries = <T extends { time: number }>(page: Page<T>, tag: (item: T, ms: number) => Entry) => ({
    rows: page.items.map((item) => tag(item, Math.round(item.time * 1000))),
    more: page.next !== undefined,
    next: page.next,
  });
  if (kind === 'posts') {
    return entries(await listPosts(db, list, deliveriesForPosts), (item, ms) => ({ kind, ms, item }));
  }
  if (kind === 'media') return entries(await listMedia(db, config.baseUrl, list), (item, ms) => ({ kind, ms, item }));
  return entries(await listLocations(db, list), (item, ms) => ({ kind, ms, item }));
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
  const before = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
  const until = before ?? (query.date ? endOfDay(query.date, timezone) : undefined);
  const single = kinds.length === 1 && scopes.length === 1;
  const params: CollectionParams = { count: size, order: 'desc' };
  // As a query string carries it: a repeated parameter is one text, "a,b".
  if (single && query.cursor) params.cursor = String(query.cursor);
  else if (until !== undefined) params.until_time = untilSeconds(until);
  const pages = await Promise.all(kinds.flatMap((k) => scopes.map((s) => ownCollection(ctx, k, s, params))));
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
  return { entries, more };
}
