import type { Db } from '../db/database.ts';
import type { UserSettingsTable } from '../db/schema.ts';

export type SettingsRow = UserSettingsTable;

export function findSettingsRow(db: Db, userId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('user_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Writes the whole row: inserted on first change, replaced after. */
export async function upsertSettingsRow(db: Db, row: SettingsRow): Promise<void> {
  const { user_id: _userId, ...rest } = row;
  await db
    .insertInto('user_settings')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
    .execute();
}
