// On SQLite, a written point's cells go through a log (docs/history.md "Tiles"). The per-row
// triggers of migrations 0012 and 0023 upserted one cell per kept level for every point: six
// statements a point, more than half of what storing one cost (bench/insert-cost.ts). Now they
// append the point's level-18 cell once to `location_cell_log`, and the writers fold the log into
// `location_cells` per batch, grouped by cell, in their own transaction
// (src/locations/cells.repo.ts); a reader of the cells folds whatever another way of writing left.
// PostgreSQL's triggers already write the cells once per statement, grouped: unchanged there.
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { bucketOf, cell } from './0012_location_history.ts';

/** What SQLite's trigger does for one written or removed row (`sign`): its quarter hour, its finest cell. */
export const effects = (row: 'new' | 'old', sign: '+' | '-') => {
  const { cx, cy } = cell(row, true, '18');
  const user = sql.raw(`${row}.user_id`);
  return sql`
    insert into location_dirty (user_id, bucket) values (${user}, ${bucketOf(row)}) on conflict do nothing;
    insert into location_cell_log (user_id, cx, cy, points) values (${user}, ${cx}, ${cy}, ${sql.raw(sign)}1);`;
};
/** The person's history version moves with every write of their points. */
export const bump = (row: 'new' | 'old') =>
  sql`insert into location_versions (user_id, version) values (${sql.raw(`${row}.user_id`)}, 1)
    on conflict (user_id) do update set version = version + 1;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  // A rowid table written in order: every append lands on the last page.
  await db.schema
    .createTable('location_cell_log')
    .addColumn('user_id', 'text', (col) => col.notNull())
    .addColumn('cx', 'integer', (col) => col.notNull())
    .addColumn('cy', 'integer', (col) => col.notNull())
    .addColumn('points', 'integer', (col) => col.notNull())
    .execute();
  for (const trigger of ['locations_history_insert', 'locations_history_delete', 'locations_history_update']) {
    await sql`drop trigger ${sql.id(trigger)}`.execute(db);
  }
  await sql`create trigger locations_history_insert after insert on locations
    begin ${bump('new')} ${effects('new', '+')} end`.execute(db);
  await sql`create trigger locations_history_delete after delete on locations
    begin ${bump('old')} ${effects('old', '-')} end`.execute(db);
  await sql`create trigger locations_history_update after update on locations
    begin ${bump('new')} ${effects('old', '-')} ${effects('new', '+')} end`.execute(db);
  // A person deleted: the cascade through their locations logs their cells; this removes them.
  await sql`create trigger users_location_cell_log_delete after delete on users
    begin delete from location_cell_log where user_id = old.id; end`.execute(db);
}
