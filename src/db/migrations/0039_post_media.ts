// Which posts show which media (docs/design.md "Data model"): `post_media` mirrors each post's
// `media_ids`, written with it by src/posts/posts.repo.ts, so "is this photo part of a post?"
// and "which posts name this medium?" are index lookups, not a scan of every post's JSON. A
// post's media belong to it: the timeline shows them inside the post, not again on their own.
import { sql, type Kysely } from 'kysely';

const BATCH = 1000;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('post_media')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('medium_id', 'text', (col) => col.notNull())
    .addColumn('post_id', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('post_media_pk', ['user_id', 'medium_id', 'post_id'])
    .execute();
  await db.schema.createIndex('post_media_post').on('post_media').columns(['user_id', 'post_id']).execute();
  await linkPostMedia(db);
}

/** Links every post to the media its `media_ids` names, in batches of posts. */
export async function linkPostMedia(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<{ id: string; user_id: string; media_ids: string }>`select id, user_id, media_ids
      from posts where id > ${after} and media_ids <> '[]' order by id limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    const links = rows.flatMap((row) =>
      [...new Set(JSON.parse(row.media_ids) as string[])].map((medium) => ({
        user_id: row.user_id,
        medium_id: medium,
        post_id: row.id,
      })),
    );
    for (let i = 0; i < links.length; i += 500) {
      await db
        .insertInto('post_media' as never)
        .values(links.slice(i, i + 500))
        .execute();
    }
    after = rows.at(-1)!.id;
  }
}
