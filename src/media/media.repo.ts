import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { MediaTable } from '../db/schema.ts';
import { scopeRule, selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

export type MediumRow = MediaTable;

export function selectMediaPage(db: Db, audience: Audience, page: PageQuery) {
  return selectPage(db, 'media', audience, page);
}

/** The media among `ids` that the audience may see (the scope rule), in no particular order. */
export async function selectMediaByIds(db: Db, audience: Audience, ids: readonly string[]): Promise<MediumRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<MediumRow>`select * from media
    where ${scopeRule(audience, 'media')} and ${sql.ref('id')} in (${sql.join(ids)})`.execute(db);
  return rows;
}

export async function insertMedium(db: Db, row: MediumRow): Promise<void> {
  await db.insertInto('media').values(row).execute();
}

/** The owner's public media among `ids` (what may go out with a post), in no particular order. */
export function publicMediaRows(db: Db, userId: string, ids: readonly string[]): Promise<MediumRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('media')
    .selectAll()
    .where('user_id', '=', userId)
    .where('scope', '=', 'public')
    .where('id', 'in', [...new Set(ids)])
    .execute();
}
