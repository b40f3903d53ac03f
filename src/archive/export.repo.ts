// The export's reads: all of one person's items of a kind, both scopes, in keyset batches on
// (time, id) over the index (user_id, time, id) (migration 0003), and their distinct media
// files in hash order (migration 0013). Constant memory however long the history is.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { keysetBatches } from '../db/batches.ts';
import type { ItemRow, ItemTable } from '../items/items.repo.ts';

export const BATCH = 1000;

/** Every item of the person, oldest first, `BATCH` rows at a time. */
export function ownItemBatches<T extends ItemTable>(db: Db, table: T, userId: string): AsyncGenerator<ItemRow<T>[]> {
  return keysetBatches(async (after) => {
    const keyset = after ? sql`and (${sql.ref('time')}, ${sql.ref('id')}) > (${after.time}, ${after.id})` : sql``;
    const { rows } = await sql<ItemRow<T>>`select * from ${sql.table(table)}
      where ${sql.ref('user_id')} = ${userId} ${keyset}
      order by ${sql.ref('time')}, ${sql.ref('id')} limit ${BATCH}`.execute(db);
    return rows;
  }, BATCH);
}

export interface StoredMediaFile {
  sha256: string;
  mime_type: string;
}

/** The person's distinct media files (one per content hash), in hash order, from after `after`. */
export async function mediaFilesAfter(
  db: Db,
  userId: string,
  after: string | undefined,
  limit: number,
): Promise<StoredMediaFile[]> {
  let query = db
    .selectFrom('media')
    .select(['sha256', (eb) => eb.fn.min('mime_type').as('mime_type')])
    .where('user_id', '=', userId)
    .groupBy('sha256')
    .orderBy('sha256')
    .limit(limit);
  if (after !== undefined) query = query.where('sha256', '>', after);
  return query.execute();
}

/** How many items and distinct files the export will hold, for a progress line. */
export async function exportCounts(db: Db, userId: string) {
  const count = async (table: ItemTable) => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const files = await db
    .selectFrom('media')
    .select((eb) => eb.fn.count<number>('sha256').distinct().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return {
    posts: await count('posts'),
    media: await count('media'),
    locations: await count('locations'),
    files: Number(files.n),
  };
}
