// A view's rows as API objects: each kind through its own mapping (so a public point or a
// public post's location is rounded to the owner's precision exactly as in the collections),
// wrapped as `{kind, item}` because a medium already has a field named `kind`.
import type { Db } from '../db/database.ts';
import { toLocation } from '../locations/locations.logic.ts';
import { fileViewOf, toMedium, type FileView } from '../media/media.logic.ts';
import { publicMediaOf, toPost } from '../posts/posts.logic.ts';
import { publicPlacesFor, type PublicPlaces } from '../privacy/places.ts';
import type { TaggedRow } from './views.repo.ts';
import type { Medium } from '../media/media.schemas.ts';
import type { Post } from '../posts/posts.schemas.ts';
import type { Location } from '../locations/locations.schemas.ts';

export type ViewItem =
  { kind: 'posts'; item: Post } | { kind: 'media'; item: Medium } | { kind: 'locations'; item: Location };

function mapRow(
  tagged: TaggedRow,
  username: string,
  baseUrl: string,
  places: PublicPlaces,
  publicMedia: ReadonlySet<string>,
  files: FileView,
): ViewItem {
  switch (tagged.kind) {
    case 'posts':
      return { kind: 'posts', item: toPost(tagged.row, username, places, publicMedia) };
    case 'media':
      return { kind: 'media', item: toMedium(tagged.row, username, baseUrl, places, files) };
    case 'locations':
      return { kind: 'locations', item: toLocation(tagged.row, username, places) };
  }
}

export async function toViewItem(
  db: Db,
  { baseUrl, owner, byOwner }: { baseUrl: string; owner: { id: string; username: string }; byOwner: boolean },
  rows: TaggedRow[],
): Promise<ViewItem[]> {
  const places = await publicPlacesFor(
    db,
    owner.id,
    rows.map((tagged) => tagged.row),
  );
  const posts = rows.flatMap((tagged) => (tagged.kind === 'posts' ? [tagged.row] : []));
  const publicMedia = await publicMediaOf(db, owner.id, posts);
  const media = rows.flatMap((tagged) => (tagged.kind === 'media' ? [tagged.row] : []));
  // A medium's hash and size are its original's for the view's owner, its public copy's for anyone else.
  const files = await fileViewOf(db, media, byOwner);
  return rows.map((tagged) => mapRow(tagged, owner.username, baseUrl, places, publicMedia, files));
}
