// Where a map opens: the person's latest point, exact for themselves (the Map and Settings
// pages) or as strangers are served it (the profile and "what strangers see"), read through the
// locations' own list function.
import type { Db } from '../../db/database.ts';
import type { Cursors } from '../../core/cursors.ts';
import { listLocations } from '../../locations/locations.logic.ts';
import type { Viewer } from '../page.ts';

/** The person's latest point of either scope, exact: they read their own history (docs/privacy.md). */
export async function latestPlace(
  db: Db,
  viewer: Viewer,
  cursors: Cursors,
): Promise<{ lat: number; lon: number } | undefined> {
  const owner = { id: viewer.id, username: viewer.username };
  const query = { count: 1, order: 'desc' as const };
  const [own, open] = await Promise.all(
    (['private', 'public'] as const).map((scope) =>
      listLocations(db, { owner, scope, query, byOwner: true, exact: true, cursors }),
    ),
  );
  const latest = [own?.items[0], open?.items[0]]
    .filter((point) => point !== undefined)
    .sort((a, b) => b.time - a.time)[0];
  return latest ? { lat: latest.lat, lon: latest.lon } : undefined;
}

/**
 * Where the profile's map opens: the person's latest public point as the public collection
 * serves it (rounded to their precision), or undefined when they have none.
 */
export async function latestPublicPlace(
  db: Db,
  person: { id: string; username: string },
  cursors: Cursors,
): Promise<{ lat: number; lon: number } | undefined> {
  const owner = { id: person.id, username: person.username };
  const query = { count: 1, order: 'desc' as const };
  const page = await listLocations(db, { owner, scope: 'public', query, byOwner: false, exact: false, cursors });
  const latest = page.items[0];
  return latest ? { lat: latest.lat, lon: latest.lon } : undefined;
}
