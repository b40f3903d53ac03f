import type { Db } from '../db/database.ts';
import type { MediaTable } from '../db/schema.ts';
import { selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

export type MediumRow = MediaTable;

export function selectMediaPage(db: Db, audience: Audience, page: PageQuery) {
  return selectPage(db, 'media', audience, page);
}

export async function insertMedium(db: Db, row: MediumRow): Promise<void> {
  await db.insertInto('media').values(row).execute();
}
