import type { Db } from '../db/database.ts';
import type { PostsTable } from '../db/schema.ts';
import { selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

export type PostRow = PostsTable;

export function selectPostPage(db: Db, audience: Audience, page: PageQuery) {
  return selectPage(db, 'posts', audience, page);
}

export async function insertPost(db: Db, row: PostRow): Promise<void> {
  await db.insertInto('posts').values(row).execute();
}

/** Which of these medium ids belong to the user. */
export async function ownMediumIds(db: Db, userId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('media').select('id').where('user_id', '=', userId).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => row.id));
}
