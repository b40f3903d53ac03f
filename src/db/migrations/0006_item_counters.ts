// What the database keeps about a person's items on the person's own row, written by triggers
// so that no code path can forget it (the same idea as the one scope rule, docs/conventions.md 7):
//
// - `items_version` goes up in the same transaction as every insert, update or delete of a
//   public item of the person (public before or after), and every change of the precision
//   their public locations are shown at. A public page made at version v is still right while
//   the row says v (src/items/public-pages.ts), in this process or any other sharing the
//   database. Private items do not move it: a public page's ETag must not tell anyone when the
//   person wrote something private.
// - `public_posts`, `public_media`, `public_locations` count the public items, so a profile
//   shows them without counting a million rows on every request.
//
// SQLite triggers run per row; PostgreSQL's run once per statement over its transition tables,
// so a batch of 1000 locations updates the person's row once, not 1000 times.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const COUNTERS = { posts: 'public_posts', media: 'public_media', locations: 'public_locations' } as const;
type ItemTable = keyof typeof COUNTERS;

async function addColumns(db: Kysely<unknown>): Promise<void> {
  for (const column of ['items_version', ...Object.values(COUNTERS)]) {
    await db.schema
      .alterTable('users')
      .addColumn(column, 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
  }
  for (const [table, column] of Object.entries(COUNTERS)) {
    await sql`update users set ${sql.ref(column)} = (select count(*) from ${sql.table(table)} i
      where i.user_id = users.id and i.scope = 'public')`.execute(db);
  }
}

async function sqliteTriggers(db: Kysely<unknown>, table: ItemTable): Promise<void> {
  const counter = sql.ref(COUNTERS[table]);
  const bump = (row: 'new' | 'old', sign: '+' | '-') =>
    sql`update users set items_version = items_version + 1,
      ${counter} = ${counter} ${sql.raw(sign)} (${sql.raw(row)}.scope = 'public')
      where id = ${sql.raw(row)}.user_id;`;
  await sql`create trigger ${sql.raw(`${table}_counters_insert`)} after insert on ${sql.table(table)}
    when new.scope = 'public' begin ${bump('new', '+')} end`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_counters_delete`)} after delete on ${sql.table(table)}
    when old.scope = 'public' begin ${bump('old', '-')} end`.execute(db);
  await sql`create trigger ${sql.raw(`${table}_counters_update`)} after update on ${sql.table(table)}
    when old.scope = 'public' or new.scope = 'public' begin ${bump('old', '-')} ${bump('new', '+')} end`.execute(db);
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  // One function for the three tables; TG_ARGV[0] names the counter column. Transition tables
  // that a statement does not have (old_rows on INSERT) are only named in the branch that runs.
  // Only users with public rows in the statement are touched. (TRUNCATE fires no row
  // triggers; nothing here truncates item tables.)
  await sql`create function waypost_item_counters() returns trigger language plpgsql as $$
    declare
      change text := 'update users u set items_version = u.items_version + 1, %1$I = u.%1$I %2$s c.n
        from (select user_id, count(*) as n from %3$I where scope = ''public'' group by user_id) c
        where u.id = c.user_id';
    begin
      if tg_op in ('DELETE', 'UPDATE') then
        execute format(change, tg_argv[0], '-', 'old_rows');
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        execute format(change, tg_argv[0], '+', 'new_rows');
      end if;
      return null;
    end $$`.execute(db);
  for (const [table, column] of Object.entries(COUNTERS)) {
    const name = (op: string) => sql.raw(`${table}_counters_${op}`);
    const run = sql`for each statement execute function waypost_item_counters(${sql.lit(column)})`;
    await sql`create trigger ${name('insert')} after insert on ${sql.table(table)}
      referencing new table as new_rows ${run}`.execute(db);
    await sql`create trigger ${name('delete')} after delete on ${sql.table(table)}
      referencing old table as old_rows ${run}`.execute(db);
    await sql`create trigger ${name('update')} after update on ${sql.table(table)}
      referencing old table as old_rows new table as new_rows ${run}`.execute(db);
  }
}

/**
 * The precision public locations are shown at decides how public pages look: a change of it
 * is a new version. The first settings row of a person counts as one (the default was before).
 */
async function settingsTriggers(db: Kysely<unknown>, sqlite: boolean): Promise<void> {
  const changed = sql`old.public_location_precision_m <> new.public_location_precision_m`;
  if (sqlite) {
    const bump = sql`begin update users set items_version = items_version + 1 where id = new.user_id; end`;
    await sql`create trigger user_settings_version_insert after insert on user_settings ${bump}`.execute(db);
    await sql`create trigger user_settings_version_update after update on user_settings
      when ${changed} ${bump}`.execute(db);
    return;
  }
  await sql`create function waypost_settings_version() returns trigger language plpgsql as $$
    begin
      update users set items_version = items_version + 1 where id = new.user_id;
      return null;
    end $$`.execute(db);
  await sql`create trigger user_settings_version_insert after insert on user_settings
    for each row execute function waypost_settings_version()`.execute(db);
  await sql`create trigger user_settings_version_update after update on user_settings
    for each row when (${changed}) execute function waypost_settings_version()`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await addColumns(db);
  if (sqlite) for (const table of Object.keys(COUNTERS) as ItemTable[]) await sqliteTriggers(db, table);
  else await postgresTriggers(db);
  await settingsTriggers(db, sqlite);
}
