import type { Db } from '../db/database.ts';
import type { PostsTable, ScopeValue } from '../db/schema.ts';
import { scopeRule, selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';
import { selectOwned } from '../items/owned.repo.ts';
import { sql } from 'kysely';
import { likeLiteral } from '../db/like.ts';

export type PostRow = PostsTable;

export function selectPostPage(db: Db, audience: Audience, page: PageQuery) {
  return selectPage(db, 'posts', audience, page);
}

/** The posts among `ids` that the audience may see (the scope rule), in no particular order. */
export async function selectPostsByIds(db: Db, audience: Audience, ids: readonly string[]): Promise<PostRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<PostRow>`select * from posts
    where ${scopeRule(audience, 'posts')} and ${sql.ref('id')} in (${sql.join(ids)})`.execute(db);
  return rows;
}

export async function insertPost(db: Db, row: PostRow): Promise<void> {
  await insertPosts(db, [row]);
}

/** Several posts in one statement (a restore's batch). */
export async function insertPosts(db: Db, rows: readonly PostRow[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('posts')
      .values([...rows])
      .execute();
}

/** The scope of each of these medium ids that belongs to the user; the others are left out. */
export function ownMediumScopes(db: Db, userId: string, ids: string[]): Promise<Map<string, ScopeValue>> {
  return selectOwned<ScopeValue>(db, 'media', 'scope', userId, ids);
}

/** The person's posts that name a medium in `media_ids`, to drop it from them. */
export async function postsNamingMedium(db: Db, userId: string, mediumId: string) {
  const { rows } = await sql<{ id: string; media_ids: string }>`select id, media_ids from posts
    where user_id = ${userId} and media_ids like ${`%"${likeLiteral(mediumId)}"%`} escape '\\'`.execute(db);
  return rows;
}

export async function setPostMediaIds(db: Db, userId: string, postId: string, mediaIds: string[]): Promise<void> {
  await db
    .updateTable('posts')
    .set({ media_ids: JSON.stringify(mediaIds) })
    .where('user_id', '=', userId)
    .where('id', '=', postId)
    .execute();
}
