// What a location history of millions of points needs besides the rows (docs/history.md),
// written by triggers on `locations`, so every way in (the batch route, trackers, imports)
// keeps it without knowing about it:
//
// - `location_versions`: one counter per person that every insert, update or delete of a
//   location moves, private ones included. It names the owner's tiles (ETag); public tiles
//   follow `users.items_version` instead, which private writes do not move (migration 0006).
// - `location_cells`: points per Web Mercator grid cell at levels 6, 9, 12, 15 and 18 (a level-L
//   cell is a zoom-L tile), over exact coordinates and both scopes. A low-zoom tile of the
//   owner sums these instead of reading millions of rows.
// - `location_dirty`: the UTC quarter hours whose points changed since the statistics last
//   looked. `location_buckets` holds per quarter hour what the statistics add up (points,
//   distance, bounding box, last point); it is recomputed from the rows for the dirty quarter
//   hours when statistics are read (src/history/stats.repo.ts), so points arriving out of
//   order (imports) are counted right.
//
// None of these tables references users: a cascade deleting a person's locations fires these
// triggers while the person's row is going; a trigger on users removes what is left after.
import { SqliteAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/** The grid levels this migration keeps (migration 0023 adds level 16). */
const CELL_LEVELS = [6, 9, 12, 15, 18] as const;
/** A quarter hour: every time zone's offset from UTC is a whole number of them. */
export const BUCKET_MS = 900_000;

const levelsOf = (levels: readonly number[]) =>
  sql.raw(levels.map((level) => `select ${level} as level`).join(' union all '));

/** Web Mercator cell of `row` (new or old) at `level` (SQL), clamped to the grid (latitudes beyond 85.05). */
export function cell(
  row: string,
  sqlite: boolean,
  level = 'l.level',
): { cx: RawBuilder<number>; cy: RawBuilder<number> } {
  const size = sql.raw(`(1 << ${level})`);
  // A latitude within 1e-9 degrees of the equator counts as 0: PostgreSQL refuses to multiply
  // a subnormal double (radians(-5e-324) is "value out of range: underflow").
  const lat = sql.raw(`(case when abs(${row}.lat) < 1e-9 then 0.0 else ${row}.lat end)`);
  const lon = sql.raw(`${row}.lon`);
  const clampLat = sqlite ? sql`max(-85.0511, min(85.0511, ${lat}))` : sql`greatest(-85.0511, least(85.0511, ${lat}))`;
  const rad = sql`(${clampLat} * pi() / 180.0)`;
  const x = sql`((${lon} + 180.0) / 360.0)`;
  const y = sql`((1.0 - ln(tan(${rad}) + 1.0 / cos(${rad})) / pi()) / 2.0)`;
  const index = (fraction: RawBuilder<unknown>) =>
    sqlite
      ? sql<number>`cast(max(0, min(${size} - 1, floor(${fraction} * ${size}))) as integer)`
      : sql<number>`cast(greatest(0, least(${size} - 1, floor(${fraction} * ${size}))) as integer)`;
  return { cx: index(x), cy: index(y) };
}

export const bucketOf = (row: string) =>
  sql.raw(`(${row}.time - (((${row}.time % ${BUCKET_MS}) + ${BUCKET_MS}) % ${BUCKET_MS}))`);

async function createTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('location_versions')
    .addColumn('user_id', 'text', (col) => col.primaryKey())
    .addColumn('version', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('location_cells')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('level', 'integer', (col) => col.notNull())
    .addColumn('cx', 'integer', (col) => col.notNull())
    .addColumn('cy', 'integer', (col) => col.notNull())
    .addColumn('points', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('location_cells_pk', ['user_id', 'level', 'cx', 'cy'])
    .execute();
  await db.schema
    .createTable('location_dirty')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('bucket', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('location_dirty_pk', ['user_id', 'bucket'])
    .execute();
  let buckets = db.schema
    .createTable('location_buckets')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('bucket', 'bigint', (col) => col.notNull())
    .addColumn('points', 'bigint', (col) => col.notNull())
    .addColumn('distance_m', 'double precision', (col) => col.notNull());
  for (const column of [
    'min_lat',
    'max_lat',
    'min_lon',
    'max_lon',
    'min_lon360',
    'max_lon360',
    'last_lat',
    'last_lon',
  ]) {
    buckets = buckets.addColumn(column, 'double precision', (col) => col.notNull());
  }
  await buckets
    .addColumn('last_time', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('location_buckets_pk', ['user_id', 'bucket'])
    .execute();
}

/** SQLite's triggers on locations, keeping the cells of `levels` (migration 0023 makes them again). */
export async function sqliteTriggers(db: Kysely<unknown>, levels: readonly number[]): Promise<void> {
  const levelsTable = levelsOf(levels);
  const effects = (row: 'new' | 'old', sign: '+' | '-') => {
    const { cx, cy } = cell(row, true);
    const user = sql.raw(`${row}.user_id`);
    return sql`
      insert into location_dirty (user_id, bucket) values (${user}, ${bucketOf(row)}) on conflict do nothing;
      insert into location_cells (user_id, level, cx, cy, points)
        select ${user}, l.level, ${cx}, ${cy}, ${sql.raw(sign)}1 from (${levelsTable}) l where true
        on conflict (user_id, level, cx, cy) do update set points = points ${sql.raw(sign)} 1;`;
  };
  const bump = (row: 'new' | 'old') =>
    sql`insert into location_versions (user_id, version) values (${sql.raw(`${row}.user_id`)}, 1)
      on conflict (user_id) do update set version = version + 1;`;
  await sql`create trigger locations_history_insert after insert on locations
    begin ${bump('new')} ${effects('new', '+')} end`.execute(db);
  await sql`create trigger locations_history_delete after delete on locations
    begin ${bump('old')} ${effects('old', '-')} end`.execute(db);
  await sql`create trigger locations_history_update after update on locations
    begin ${bump('new')} ${effects('old', '-')} ${effects('new', '+')} end`.execute(db);
}

/** PostgreSQL's trigger function, keeping the cells of `levels` (migration 0023 replaces it). */
export async function postgresTriggers(
  db: Kysely<unknown>,
  levels: readonly number[],
  replacing = false,
): Promise<void> {
  const levelsTable = levelsOf(levels);
  // Once per statement over its transition table: a batch of 1000 points is one upsert per
  // cell and quarter hour it touches. Rows are upserted in key order, so two concurrent
  // statements take their row locks in the same order and cannot deadlock each other. The
  // dirty mark is an upsert that updates (not DO NOTHING): it locks the mark, so a refresh
  // deleting it waits for this transaction and then reads its points (READ COMMITTED).
  // A cascade from a deleted person runs these after the person's row (and the cleanup
  // below) is gone: rows of people who no longer exist are passed over.
  const { cx, cy } = cell('r', false);
  const live = (rows: string) =>
    `(select * from ${rows} r where exists (select 1 from users u where u.id = r.user_id))`;
  const effects = (transition: string, sign: '+' | '-') => {
    const rows = live(transition);
    return `
    insert into location_dirty (user_id, bucket)
      select distinct r.user_id, ${bucketOf('r').compile(db).sql} from ${rows} r order by 1, 2
      on conflict (user_id, bucket) do update set bucket = excluded.bucket;
    insert into location_cells (user_id, level, cx, cy, points)
      select user_id, level, cx, cy, ${sign}count(*) from (
        select r.user_id, l.level, ${cx.compile(db).sql} as cx, ${cy.compile(db).sql} as cy
        from ${rows} r cross join (${levelsTable.compile(db).sql}) l) c
      group by user_id, level, cx, cy order by user_id, level, cx, cy
      on conflict (user_id, level, cx, cy) do update set points = location_cells.points + excluded.points;
    insert into location_versions (user_id, version)
      select distinct user_id, 1 from ${rows} v order by 1
      on conflict (user_id) do update set version = location_versions.version + 1;`;
  };
  await sql`create or replace function waypost_location_history() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then ${sql.raw(effects('old_rows', '-'))} end if;
      if tg_op in ('INSERT', 'UPDATE') then ${sql.raw(effects('new_rows', '+'))} end if;
      return null;
    end $$`.execute(db);
  const run = sql`for each statement execute function waypost_location_history()`;
  if (replacing) return;
  await sql`create trigger locations_history_insert after insert on locations
    referencing new table as new_rows ${run}`.execute(db);
  await sql`create trigger locations_history_delete after delete on locations
    referencing old table as old_rows ${run}`.execute(db);
  await sql`create trigger locations_history_update after update on locations
    referencing old table as old_rows new table as new_rows ${run}`.execute(db);
}

/** A person deleted: what the triggers kept about their locations goes too. */
async function cleanupTrigger(db: Kysely<unknown>, sqlite: boolean): Promise<void> {
  const tables = ['location_versions', 'location_cells', 'location_dirty', 'location_buckets'];
  const deletes = tables.map((table) => `delete from ${table} where user_id = old.id;`).join(' ');
  if (sqlite) {
    await sql`create trigger users_location_history_delete after delete on users
      begin ${sql.raw(deletes)} end`.execute(db);
    return;
  }
  await sql`create function waypost_location_history_cleanup() returns trigger language plpgsql as $$
    begin ${sql.raw(deletes)} return null; end $$`.execute(db);
  await sql`create trigger users_location_history_delete after delete on users
    for each row execute function waypost_location_history_cleanup()`.execute(db);
}

/** What the triggers would have written for the rows already there. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const levelsTable = levelsOf(CELL_LEVELS);
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const { cx, cy } = cell('r', sqlite);
  await sql`insert into location_versions (user_id, version) select distinct user_id, 1 from locations`.execute(db);
  await sql`insert into location_dirty (user_id, bucket) select distinct r.user_id, ${bucketOf('r')} from locations r`.execute(
    db,
  );
  await sql`insert into location_cells (user_id, level, cx, cy, points)
    select user_id, level, cx, cy, count(*) from (
      select r.user_id, l.level, ${cx} as cx, ${cy} as cy from locations r cross join (${levelsTable}) l) c
    group by user_id, level, cx, cy`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await createTables(db);
  // A high-zoom tile reads the points in a small box: a range of latitudes, then longitudes,
  // answered from the index alone.
  await db.schema
    .createIndex('locations_position')
    .on('locations')
    .columns(['user_id', 'lat', 'lon', 'time', 'scope'])
    .execute();
  await backfill(db);
  if (sqlite) await sqliteTriggers(db, CELL_LEVELS);
  else await postgresTriggers(db, CELL_LEVELS);
  await cleanupTrigger(db, sqlite);
}
