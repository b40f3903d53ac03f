// The reads of a restore: who holds the ids an archive names, and which are the person's own.
// What it brings back is written by each feature's own inserts, as the API writes it.
import type { Db } from '../../db/database.ts';

/** Tables whose rows keep their ids across a restore. */
export type RestoredTable =
  'posts' | 'media' | 'locations' | 'views' | 'services' | 'service_groups' | 'places' | 'visit_corrections';

/** Who holds each of `ids` in `table` (ids nobody holds are absent). */
export async function idHolders(db: Db, table: RestoredTable, ids: readonly string[]): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  // PostgreSQL and SQLite both take a few thousand parameters comfortably.
  for (let start = 0; start < ids.length; start += 1000) {
    const rows = await db
      .selectFrom(table)
      .select(['id', 'user_id'])
      .where('id', 'in', ids.slice(start, start + 1000))
      .execute();
    for (const row of rows) holders.set(row.id, row.user_id);
  }
  return holders;
}

/** Of `ids`, those that are the person's own in `table`. */
export async function ownIds(
  db: Db,
  table: RestoredTable,
  userId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where('user_id', '=', userId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Whether one of the person's own media has this content (a file they hold already). */
export async function ownsContent(db: Db, userId: string, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('media')
    .select('id')
    .where('user_id', '=', userId)
    .where('sha256', '=', sha256)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
