// The public pages show times on the owner's clock (docs/web-public.md "Times and places"), so a
// change of `user_settings.timezone` is a new version of every public page, as a change of the
// precision or of the zones is (migrations 0006 and 0019): the same trigger, one more column.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const CHANGED = `old.public_location_precision_m <> new.public_location_precision_m
  or old.privacy_zones <> new.privacy_zones or old.timezone <> new.timezone`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`drop trigger user_settings_version_update`.execute(db);
    await sql`create trigger user_settings_version_update after update on user_settings when ${sql.raw(CHANGED)}
      begin update users set items_version = items_version + 1 where id = new.user_id; end`.execute(db);
    return;
  }
  await sql`drop trigger user_settings_version_update on user_settings`.execute(db);
  await sql`create trigger user_settings_version_update after update on user_settings
    for each row when (${sql.raw(CHANGED)}) execute function waypost_settings_version()`.execute(db);
}
