import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PostsTable, ScopeValue } from '../db/schema.ts';
import { scopeRule, selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';
import { selectOwned } from '../items/owned.repo.ts';

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

/** Several posts in one statement (a restore's batch), with the links to their media. */
export async function insertPosts(db: Db, rows: readonly PostRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('posts')
    .values([...rows])
    .execute();
  await insertLinks(
    db,
    rows.flatMap((row) => linksOf(row.user_id, row.id, JSON.parse(row.media_ids) as string[])),
  );
}

const linksOf = (userId: string, postId: string, mediaIds: readonly string[]) =>
  [...new Set(mediaIds)].map((medium) => ({ user_id: userId, medium_id: medium, post_id: postId }));

async function insertLinks(db: Db, links: { user_id: string; medium_id: string; post_id: string }[]) {
  for (let i = 0; i < links.length; i += 500)
    await db
      .insertInto('post_media')
      .values(links.slice(i, i + 500))
      .execute();
}

/** Sets a post's text; false when it was that already. */
export async function setPostText(db: Db, userId: string, id: string, text: string): Promise<boolean> {
  const result = await db
    .updateTable('posts')
    .set({ text })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .where('text', '<>', text)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Forgets which media a deleted post showed. */
export async function deletePostLinks(db: Db, userId: string, postId: string): Promise<void> {
  await db.deleteFrom('post_media').where('user_id', '=', userId).where('post_id', '=', postId).execute();
}

/** Of these media of the person, those some post shows. */
export async function mediaInPosts(db: Db, userId: string, mediumIds: readonly string[]): Promise<Set<string>> {
  if (mediumIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('post_media')
    .select('medium_id')
    .distinct()
    .where('user_id', '=', userId)
    .where('medium_id', 'in', [...mediumIds])
    .execute();
  return new Set(rows.map((row) => row.medium_id));
}

/** The scope of each of these medium ids that belongs to the user; the others are left out. */
export function ownMediumScopes(db: Db, userId: string, ids: string[]): Promise<Map<string, ScopeValue>> {
  return selectOwned<ScopeValue>(db, 'media', 'scope', userId, ids);
}

/** The person's posts that name a medium in `media_ids`, to drop it from them. */
export async function postsNamingMedium(db: Db, userId: string, mediumId: string) {
  return db
    .selectFrom('post_media as l')
    .innerJoin('posts as p', (join) => join.onRef('p.user_id', '=', 'l.user_id').onRef('p.id', '=', 'l.post_id'))
    .select(['p.id', 'p.media_ids'])
    .where('l.user_id', '=', userId)
    .where('l.medium_id', '=', mediumId)
    .execute();
}

export async function setPostMediaIds(db: Db, userId: string, postId: string, mediaIds: string[]): Promise<void> {
  await db
    .updateTable('posts')
    .set({ media_ids: JSON.stringify(mediaIds) })
    .where('user_id', '=', userId)
    .where('id', '=', postId)
    .execute();
  await deletePostLinks(db, userId, postId);
  await insertLinks(db, linksOf(userId, postId, mediaIds));
}
