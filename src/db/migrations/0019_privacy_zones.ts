// Privacy zones (docs/privacy.md "Privacy zones"):
//
// - `user_settings.privacy_zones`: the person's zones as a JSON array of {name, lat, lon, radius_m}.
// - `locations.hidden`: 1 when the point lies in the area a zone hides (src/privacy/zones.ts),
//   written with the point and rewritten, in the transaction that changes the zones or the
//   precision, for the points whose answer changed. A hidden public point is, for strangers,
//   a private one: the one scope rule leaves it out (src/items/items.repo.ts).
// - The counters of migration 0006 treat a hidden point like a private one: writing, changing
//   or deleting it moves neither `public_locations` nor `items_version`, so no public ETag or
//   count tells that it happened. A flag that changes is a change of the public answer, and
//   moves them as a public write does.
// - A change of the zones is a new version of every public page (as one of the precision is):
//   public posts and media inside a zone are shown without their location.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/** Public and not hidden: what strangers see, and what the counters count. */
export const SHOWN = (row: string) => sql.raw(`(${row}.scope = 'public' and ${row}.hidden = 0)`);

/** SQLite's counters for one shown row written (+) or removed (-). */
export const bumpCounters = (row: 'new' | 'old', sign: '+' | '-') =>
  sql`update users set items_version = items_version + 1,
      public_locations = public_locations ${sql.raw(sign)} ${SHOWN(row)}
      where id = ${sql.raw(row)}.user_id;`;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'delete', 'update']) {
    await sql`drop trigger ${sql.raw(`locations_counters_${op}`)}`.execute(db);
  }
  await sql`create trigger locations_counters_insert after insert on locations
    when ${SHOWN('new')} begin ${bumpCounters('new', '+')} end`.execute(db);
  await sql`create trigger locations_counters_delete after delete on locations
    when ${SHOWN('old')} begin ${bumpCounters('old', '-')} end`.execute(db);
  await sql`create trigger locations_counters_update after update on locations
    when ${SHOWN('old')} or ${SHOWN('new')} begin ${bumpCounters('old', '-')} ${bumpCounters('new', '+')} end`.execute(
    db,
  );

  const changed = sql`old.public_location_precision_m <> new.public_location_precision_m
    or old.privacy_zones <> new.privacy_zones`;
  await sql`drop trigger user_settings_version_update`.execute(db);
  await sql`create trigger user_settings_version_update after update on user_settings when ${changed}
    begin update users set items_version = items_version + 1 where id = new.user_id; end`.execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'delete', 'update']) {
    await sql`drop trigger ${sql.raw(`locations_counters_${op}`)} on locations`.execute(db);
  }
  await sql`create function waypost_location_counters() returns trigger language plpgsql as $$
    declare
      change text := 'update users u set items_version = u.items_version + 1,
        public_locations = u.public_locations %1$s c.n
        from (select user_id, count(*) as n from %2$I where scope = ''public'' and hidden = 0 group by user_id) c
        where u.id = c.user_id';
    begin
      if tg_op in ('DELETE', 'UPDATE') then
        execute format(change, '-', 'old_rows');
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        execute format(change, '+', 'new_rows');
      end if;
      return null;
    end $$`.execute(db);
  const run = sql`for each statement execute function waypost_location_counters()`;
  await sql`create trigger locations_counters_insert after insert on locations
    referencing new table as new_rows ${run}`.execute(db);
  await sql`create trigger locations_counters_delete after delete on locations
    referencing old table as old_rows ${run}`.execute(db);
  await sql`create trigger locations_counters_update after update on locations
    referencing old table as old_rows new table as new_rows ${run}`.execute(db);

  await sql`drop trigger user_settings_version_update on user_settings`.execute(db);
  await sql`create trigger user_settings_version_update after update on user_settings
    for each row when (old.public_location_precision_m <> new.public_location_precision_m
      or old.privacy_zones <> new.privacy_zones)
    execute function waypost_settings_version()`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('user_settings')
    .addColumn('privacy_zones', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('locations')
    .addColumn('hidden', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  // The hidden points of a person, read again when the zones change: few, so a partial index.
  await sql`create index locations_hidden on locations (user_id) where hidden = 1`.execute(db);
  if (db.getExecutor().adapter instanceof SqliteAdapter) await sqliteTriggers(db);
  else await postgresTriggers(db);
}
