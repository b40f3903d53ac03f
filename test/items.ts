// Factories for items: rows written straight to the database, for tests that need many items
// or items of a given scope and time without going through the ways in.
import { randomBytes } from 'node:crypto';
import type { Database } from '../src/db/database.ts';
import type { ScopeValue } from '../src/db/schema.ts';
import { newId } from '../src/lib/ids.ts';

export type Kind = 'posts' | 'media' | 'locations';
export const KINDS: Kind[] = ['posts', 'media', 'locations'];

export interface ItemSeed {
  scope?: ScopeValue;
  /** Milliseconds. */
  time?: number;
  id?: string;
  lat?: number;
  lon?: number;
}

function row(kind: Kind, userId: string, seed: ItemSeed, index: number) {
  const base = {
    user_id: userId,
    id: seed.id ?? newId(),
    scope: seed.scope ?? 'public',
    time: seed.time ?? 1_700_000_000_000 + index,
    created_at: 1_700_000_000_000,
  };
  if (kind === 'posts') {
    const located = seed.lat !== undefined ? { lat: seed.lat, lon: seed.lon ?? 0 } : { lat: null, lon: null };
    return { ...base, text: `post ${index}`, media_ids: '[]', ...located, source: null };
  }
  if (kind === 'media') {
    return {
      ...base,
      kind: 'image',
      mime_type: 'image/png',
      size: 1,
      sha256: randomBytes(32).toString('hex'),
      width: 1,
      height: 1,
      duration: null,
      lat: null,
      lon: null,
      caption: '',
      has_thumbnail: 0,
      source: null,
    };
  }
  return {
    ...base,
    lat: seed.lat ?? 52.52 + index / 1e5,
    lon: seed.lon ?? 13.405,
    alt: null,
    accuracy: null,
    speed: null,
    heading: null,
    source: null,
  };
}

/** Inserts items of one kind for a user; returns their ids in the order given. */
export async function insertItems(
  database: Database,
  kind: Kind,
  userId: string,
  seeds: ItemSeed[],
): Promise<string[]> {
  const rows = seeds.map((seed, index) => row(kind, userId, seed, index));
  for (let start = 0; start < rows.length; start += 500) {
    // One table per kind; the union of row shapes is checked per kind above.
    await database.db
      .insertInto(kind)
      .values(rows.slice(start, start + 500))
      .execute();
  }
  return rows.map((r) => r.id);
}
