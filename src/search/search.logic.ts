// Search (docs/api.md "Search"): who may search what, the matches, and each match as a result
// with its snippet and its item as the item's own read shows it to this reader. The SQL half of
// the scope rule is in the query (the person's own rows, of the scopes the reader may see), the
// other half here through src/items/access.ts; the items are read again through the scope rule
// and shown by the same functions as their collections, so a public search shows exactly what
// `GET /<kind>/public/<username>` shows (public precision, privacy zones, public copies).
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import type { Cursors } from '../core/cursors.ts';
import { readableScopes, readsExactly, readsPrivate, requirePrivateReads } from '../items/access.ts';
import { toPageQuery, type Page } from '../items/items.logic.ts';
import type { Audience, PageQuery } from '../items/items.repo.ts';
import { COUNT_DEFAULT } from '../items/items.schemas.ts';
import { msToSeconds } from '../lib/time.ts';
import { fileViewOf, toMedium } from '../media/media.logic.ts';
import { selectMediaByIds } from '../media/media.repo.ts';
import { toPlace } from '../places/places.logic.ts';
import { countVisitsAt, placeRowsByIds } from '../places/places.repo.ts';
import { publicMediaOf, toPost } from '../posts/posts.logic.ts';
import { selectPostsByIds } from '../posts/posts.repo.ts';
import { placesForReader } from '../privacy/places.ts';
import type { Medium } from '../media/media.schemas.ts';
import type { Place } from '../places/places.schemas.ts';
import type { Post } from '../posts/posts.schemas.ts';
import type { ScopeValue } from '../db/schema.ts';
import { parseQuery, type Term } from './search.query.ts';
import { selectMatches, type SearchFilter, type SearchRow } from './search.repo.ts';
import {
  SEARCH_KINDS,
  type PublicSearchParams,
  type SearchKind,
  type SearchParams,
  type SearchResult,
} from './search.schemas.ts';
import { snippetHtml, snippetOf, type SnippetPart } from './search.snippet.ts';

/** A result before it goes on the wire: the snippet as parts, for a page to escape itself. */
export type Found = Omit<SearchResult, 'snippet' | 'item'> & { item: FoundItem; parts: SnippetPart[] };

/** What `item` holds (the schema names it by reference, which TypeBox types as unknown). */
export type FoundItem = Post | Medium | Place;

export function toSearchResult({ parts, ...found }: Found): SearchResult {
  return { ...found, snippet: snippetHtml(parts) };
}

/** Whose items, which of them, and how the reader sees them. */
interface Searcher {
  owner: { id: string; username: string };
  scopes: readonly ScopeValue[];
  kinds: readonly SearchKind[];
  /** The owner reading with `get_private_scope`: places exact (src/items/access.ts `readsExactly`). */
  exact: boolean;
  /** The owner's own search: media with their original files. */
  byOwner: boolean;
}

type Params = Pick<SearchParams, 'q' | 'count' | 'since_time' | 'until_time' | 'cursor'>;

/** The caller's own search: private items and places only with `get_private_scope`. */
export function ownSearcher(auth: Auth, query: Pick<SearchParams, 'kind' | 'scope'>): Searcher {
  if (query.scope === 'private' || query.kind === 'places') requirePrivateReads(auth);
  const all = readsPrivate(auth) ? SEARCH_KINDS : SEARCH_KINDS.filter((kind) => kind !== 'places');
  return {
    owner: { id: auth.userId, username: auth.username },
    scopes: query.scope ? [query.scope] : readableScopes(auth),
    kinds: query.kind ? [query.kind] : all,
    exact: readsExactly(auth.userId, auth),
    byOwner: true,
  };
}

/** Anyone's search of a person's public posts and media. */
export function publicSearcher(
  owner: { id: string; username: string },
  query: Pick<PublicSearchParams, 'kind'>,
): Searcher {
  return {
    owner,
    scopes: ['public'],
    kinds: query.kind ? [query.kind] : ['posts', 'media'],
    exact: false,
    byOwner: false,
  };
}

/**
 * Matches of the terms, newest first. `keep`, when given, is a second test each match's indexed
 * text must pass (a tag page keeps the posts holding the tag, not merely its words): the matches
 * are read on, a batch at a time, until a page is full and it is known whether one more follows,
 * or until `KEEP_SCAN_MAX` matches were read for the page; then the page may be short, and its
 * `next` continues after the last match read.
 */
export async function search(
  db: Db,
  baseUrl: string,
  cursors: Cursors,
  searcher: Searcher,
  params: Params,
  keep?: (row: SearchRow) => boolean,
): Promise<Page<Found>> {
  const terms = parseQuery(params.q);
  const page = toPageQuery({ ...params, count: params.count ?? COUNT_DEFAULT, order: 'desc' }, cursors);
  const filter = { userId: searcher.owner.id, scopes: searcher.scopes, kinds: searcher.kinds, terms };
  const result: Matches = keep ? await keptMatches(db, filter, page, keep) : await selectMatches(db, filter, page);
  const items = await itemsOf(db, baseUrl, searcher, result.rows);
  const last = result.resume ?? result.rows.at(-1);
  return {
    next: result.more && last ? cursors.encode({ time: last.time, id: last.key }) : undefined,
    // An item deleted between the two reads is left out rather than shown half.
    items: result.rows.flatMap((row) => {
      const item = items.get(`${row.kind}/${row.id}`);
      return item ? [foundOf(row, item, terms)] : [];
    }),
  };
}

/** Matches for a page; `resume`: where the next page starts, when not after the page's last row. */
interface Matches {
  rows: SearchRow[];
  more: boolean;
  resume?: { time: number; key: string };
}

/** How many matches a page with a second test reads at most, and how many at a time. */
export const KEEP_SCAN_MAX = 2000;
const KEEP_BATCH = 200;

async function keptMatches(
  db: Db,
  filter: SearchFilter,
  page: PageQuery,
  keep: (row: SearchRow) => boolean,
): Promise<Matches> {
  const kept: SearchRow[] = [];
  let after = page.after;
  let read = 0;
  for (;;) {
    const batch = await selectMatches(db, filter, { ...page, count: KEEP_BATCH, after });
    for (const row of batch.rows) {
      read += 1;
      after = { time: row.time, id: row.key };
      if (!keep(row)) continue;
      kept.push(row);
      // One more than a page: there is a next page, which starts after the page's last row.
      if (kept.length > page.count) return { rows: kept.slice(0, page.count), more: true };
    }
    if (!batch.more) return { rows: kept, more: false };
    if (read >= KEEP_SCAN_MAX) {
      // Stopped reading: the next page goes on after the last match read, kept or not.
      const last = batch.rows.at(-1)!;
      return { rows: kept, more: true, resume: { time: last.time, key: last.key } };
    }
  }
}

function foundOf(row: SearchRow, item: FoundItem, terms: readonly Term[]): Found {
  return { kind: row.kind, id: row.id, time: msToSeconds(row.time), parts: snippetOf(row.body, terms), item };
}

/** The items of the matches, keyed `kind/id`, each as its own read shows it to this reader. */
async function itemsOf(
  db: Db,
  baseUrl: string,
  searcher: Searcher,
  rows: readonly SearchRow[],
): Promise<Map<string, FoundItem>> {
  const ids = (kind: SearchKind) => rows.filter((row) => row.kind === kind).map((row) => row.id);
  const { owner } = searcher;
  // Through the scope rule again: the owner's items of either scope, or their public ones.
  const audience: Audience = searcher.scopes.includes('private')
    ? { viewer: owner.id }
    : { owner: owner.id, scope: 'public' };
  const mine = <R extends { user_id: string }>(list: R[]) => list.filter((row) => row.user_id === owner.id);
  const items = new Map<string, FoundItem>();

  const posts = mine(await selectPostsByIds(db, audience, ids('posts')));
  if (posts.length > 0) {
    const places = await placesForReader(db, owner.id, searcher.exact, posts);
    const media = await publicMediaOf(db, owner.id, posts);
    for (const row of posts) items.set(`posts/${row.id}`, toPost(row, owner.username, places, media));
  }
  const media = mine(await selectMediaByIds(db, audience, ids('media')));
  if (media.length > 0) {
    const places = await placesForReader(db, owner.id, searcher.exact, media);
    const files = await fileViewOf(db, media, searcher.byOwner);
    for (const row of media) items.set(`media/${row.id}`, toMedium(row, owner.username, baseUrl, places, files));
  }
  // Places are private: only in a search that reads private items (ownSearcher checked it).
  if (searcher.scopes.includes('private')) {
    for (const row of await placeRowsByIds(db, owner.id, ids('places'))) {
      items.set(`places/${row.id}`, toPlace(row, await countVisitsAt(db, owner.id, row.id)));
    }
  }
  return items;
}
