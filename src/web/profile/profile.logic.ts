// What a person's public pages show (docs/web-public.md): their profile fields, a page of public
// posts with their public media (where the map opens: src/web/map/latest-place.ts). Read through the same functions and
// scope rule as the public collections, so a page never shows what `GET /posts/public/<username>`
// would not.
import type { Db } from '../../db/database.ts';
import type { Cursors } from '../../core/cursors.ts';
import type { Page } from '../../items/items.logic.ts';
import { selectVisible } from '../../items/items.repo.ts';
import type { PageVersion } from '../../items/public-pages.ts';
import { selectMediaByIds, type MediumRow } from '../../media/media.repo.ts';
import { listPosts, publicMediaOf, toPost } from '../../posts/posts.logic.ts';
import { deliveriesForPosts } from '../../services/deliveries.logic.ts';
import { publicPlacesFor } from '../../privacy/places.ts';
import { findUserByUsername } from '../../users/users.repo.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import { hasTag } from '../../search/hashtags.ts';
import { publicSearcher, search } from '../../search/search.logic.ts';
import type { Post } from '../../posts/posts.schemas.ts';

/** Posts per page of a profile. */
export const PROFILE_PAGE_SIZE = 20;

export interface Person {
  id: string;
  username: string;
  displayName: string;
  bio: string;
  /** The IANA zone the person chose (Settings): their public pages show times on that clock. */
  timezone: string;
}

export interface PublicMedium {
  id: string;
  kind: string;
  mimeType: string;
  caption: string;
  width: number | null;
  height: number | null;
  /** The file as strangers get it (without metadata). */
  url: string;
  thumbnailUrl: string | null;
}

export interface Entry {
  post: Post;
  media: PublicMedium[];
}

/** The person and the version of their public pages (src/items/public-pages.ts), or undefined. */
export async function personByUsername(
  db: Db,
  username: string,
): Promise<{ person: Person; version: PageVersion } | undefined> {
  const row = await findUserByUsername(db, username);
  if (!row) return undefined;
  // A change of the zone moves `items_version` (migration 0044), so the version covers it.
  const { timezone } = await getSettings(db, row.id);
  return {
    person: { id: row.id, username: row.username, displayName: row.display_name, bio: row.bio, timezone },
    version: { userId: row.id, itemsVersion: row.items_version, updatedAt: row.updated_at },
  };
}

function toPublicMedium(row: MediumRow, baseUrl: string): PublicMedium {
  return {
    id: row.id,
    kind: row.kind,
    mimeType: row.mime_type,
    caption: row.caption,
    width: row.width,
    height: row.height,
    url: `${baseUrl}/media/id/${row.id}/file`,
    thumbnailUrl: row.has_thumbnail ? `${baseUrl}/media/id/${row.id}/thumbnail` : null,
  };
}

/** Each post with its media, in the post's order; a post names only public media (docs/privacy.md). */
async function withMedia(db: Db, baseUrl: string, person: Person, posts: Post[]): Promise<Entry[]> {
  const ids = [...new Set(posts.flatMap((post) => post.media_ids))];
  const rows = await selectMediaByIds(db, { owner: person.id, scope: 'public' }, ids);
  const media = new Map(rows.map((row) => [row.id, toPublicMedium(row, baseUrl)]));
  return posts.map((post) => ({
    post,
    media: post.media_ids.flatMap((id) => {
      const medium = media.get(id);
      return medium ? [medium] : [];
    }),
  }));
}

/** A page of public posts, newest first, continuing after `cursor` (the collection's cursors). */
export async function profileEntries(
  db: Db,
  baseUrl: string,
  person: Person,
  cursor: string | undefined,
  cursors: Cursors,
): Promise<Page<Entry>> {
  const owner = { id: person.id, username: person.username };
  const query = { count: PROFILE_PAGE_SIZE, order: 'desc' as const, cursor };
  const page = await listPosts(
    db,
    { owner, scope: 'public', query, byOwner: false, exact: false, cursors },
    deliveriesForPosts,
  );
  return { items: await withMedia(db, baseUrl, person, page.items), next: page.next };
}

/** One public post of the person, or undefined (a private post and a missing one alike). */
export async function publicEntry(db: Db, baseUrl: string, person: Person, id: string): Promise<Entry | undefined> {
  const row = await selectVisible(db, 'posts', id, { owner: person.id, scope: 'public' });
  if (!row) return undefined;
  const places = await publicPlacesFor(db, person.id, [row]);
  const post = toPost(row, person.username, places, await publicMediaOf(db, person.id, [row]));
  const [entry] = await withMedia(db, baseUrl, person, [post]);
  return entry;
}

/** The words a tag is searched by: `#long_walk` is the phrase "long walk" (src/search/search.query.ts). */
export function tagQuery(tag: string): string {
  return `"${(tag.match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).join(' ')}"`;
}

/**
 * A page of the person's public posts holding `#tag`, newest first (docs/web-public.md
 * "Hashtags"): the public search finds the posts with the tag's words, and of those the page
 * keeps the ones whose text holds the tag itself (`#Berlin` or `#berlin`, not "Berlin" alone
 * nor `#berliner`). So it shows exactly the public posts `GET /search/public/<username>` would,
 * as strangers see them.
 */
export async function taggedEntries(
  db: Db,
  baseUrl: string,
  person: Person,
  tag: string,
  cursor: string | undefined,
  cursors: Cursors,
): Promise<Page<Entry>> {
  const page = await search(
    db,
    baseUrl,
    cursors,
    publicSearcher(person, { kind: 'posts' }),
    { q: tagQuery(tag), count: PROFILE_PAGE_SIZE, cursor },
    (row) => hasTag(row.body, tag),
  );
  const posts = page.items.flatMap((found) => ('text' in found.item ? [found.item] : []));
  return { items: await withMedia(db, baseUrl, person, posts), next: page.next };
}
