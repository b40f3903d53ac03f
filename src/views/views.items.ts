// A view's rows as API objects: each kind through its own mapping (so a public point or a
// public post's location is rounded to the owner's precision exactly as in the collections),
// wrapped as `{kind, item}` because a medium already has a field named `kind`.
import type { Db } from '../db/database.ts';
import { toLocation, type Location } from '../locations/locations.logic.ts';
import { toMedium, type Medium } from '../media/media.logic.ts';
import { toPost, type Post } from '../posts/posts.logic.ts';
import { getSettings } from '../settings/settings.logic.ts';
import type { StoredFilters, TaggedRow } from './views.repo.ts';

export type ViewItem =
  { kind: 'posts'; item: Post } | { kind: 'media'; item: Medium } | { kind: 'locations'; item: Location };

function mapRow(tagged: TaggedRow, username: string, baseUrl: string, precisionM: number): ViewItem {
  switch (tagged.kind) {
    case 'posts':
      return { kind: 'posts', item: toPost(tagged.row, username, precisionM) };
    case 'media':
      return { kind: 'media', item: toMedium(tagged.row, username, baseUrl, precisionM) };
    case 'locations':
      return { kind: 'locations', item: toLocation(tagged.row, username, precisionM) };
  }
}

/** Where an item is served, if it has a place at all. */
function servedPoint(item: ViewItem): { lat: number; lon: number } | null {
  return item.kind === 'locations' ? item.item : item.item.location;
}

function inBox(point: { lat: number; lon: number }, [minLon, minLat, maxLon, maxLat]: number[]): boolean {
  const inLon =
    minLon! <= maxLon! ? point.lon >= minLon! && point.lon <= maxLon! : point.lon >= minLon! || point.lon <= maxLon!;
  return inLon && point.lat >= minLat! && point.lat <= maxLat!;
}

export async function toViewItem(
  db: Db,
  { baseUrl, owner }: { baseUrl: string; owner: { id: string; username: string } },
  rows: TaggedRow[],
  filters: StoredFilters,
): Promise<ViewItem[]> {
  const needsPrecision = rows.some((tagged) => tagged.row.scope === 'public');
  const precision = needsPrecision ? (await getSettings(db, owner.id)).publicLocationPrecisionM : 0;
  const items = rows.map((tagged) => mapRow(tagged, owner.username, baseUrl, precision));
  const box = filters.bbox;
  if (!box || precision === 0) return items;
  // The database judged the exact points; a public one is served rounded and must also lie in
  // the box where it is shown. (The box is the owner's, so no reader can narrow it to probe.)
  return items.filter((item) => {
    const point = servedPoint(item);
    return point === null || item.item.scope === 'private' || inBox(point, box);
  });
}
