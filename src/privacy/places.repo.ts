import type { Db } from '../db/database.ts';

/** The settings that decide how a person's public places are shown; undefined before the first change. */
export async function findPlaceSettings(db: Db, userId: string): Promise<{ precisionM: number } | undefined> {
  const row = await db
    .selectFrom('user_settings')
    .select(['public_location_precision_m'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && { precisionM: row.public_location_precision_m };
}
