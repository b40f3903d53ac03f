import type { Db } from '../db/database.ts';
import type { PostsTable, ScopeValue } from '../db/schema.ts';
import { selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

export type PostRow = PostsTable;

export function selectPostPage(db: Db, audience: Audience, page: PageQuery) {
  return selectPage(db, 'posts', audience, page);
}

export async function insertPost(db: Db, row: PostRow): Promise<void> {
  await db.insertInto('posts').values(row).execute();
}

/** The scope of each of these medium ids that belongs to the user; the others are left out. */
export async function ownMediumScopes(db: Db, userId: string, ids: string[]): Promise<Map<string, ScopeValue>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('media')
    .select(['id', 'scope'])
    .where('user_id', '=', userId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.scope]));
}
