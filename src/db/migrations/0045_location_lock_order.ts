// PostgreSQL's location trigger (migration 0012, levels of 0027) takes the person's version row
// first (docs/scaling.md "Found by the several-node test"). Before, each statement upserted
// its quarter-hour marks and cells, then the person's one version row, which it then held to
// its commit. Two transactions writing one person's points in more than one statement each (a
// tracker's batches sharing a commit on one server, an import's batch on a worker, batches on
// two servers) deadlocked: the second, blocked on the version row, already held marks or cells
// the first's next statement needed. PostgreSQL broke each such cycle after a second
// (deadlock_timeout), failing one transaction. With the version row taken first, a writer of a
// person's points waits before it holds any of their rows, so the cycle cannot form. SQLite
// has one writer at a time: nothing to do there.
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { bucketOf, cell } from './0012_location_history.ts';
import { CELL_LEVELS } from './0027_cell_level_17.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  const levels = CELL_LEVELS.map((level) => `select ${level} as level`).join(' union all ');
  const { cx, cy } = cell('r', false);
  await replaceHistoryFunction(
    db,
    (rows, sign) => `
    insert into location_cells (user_id, level, cx, cy, points)
      select user_id, level, cx, cy, ${sign}count(*) from (
        select r.user_id, l.level, ${cx.compile(db).sql} as cx, ${cy.compile(db).sql} as cy
        from ${rows} r cross join (${levels}) l) c
      group by user_id, level, cx, cy order by user_id, level, cx, cy
      on conflict (user_id, level, cx, cy) do update set points = location_cells.points + excluded.points;`,
  );
}

/**
 * Replaces PostgreSQL's trigger function with migration 0012's statements in another order: for
 * the transition table's rows of living people, the version rows (in key order), then the marks,
 * then `cells` (a statement over `rows`, adding `sign` times each cell's points; migration 0052
 * writes another).
 */
export async function replaceHistoryFunction(
  db: Kysely<unknown>,
  cells: (rows: string, sign: '+' | '-') => string,
): Promise<void> {
  const live = (rows: string) =>
    `(select * from ${rows} r where exists (select 1 from users u where u.id = r.user_id))`;
  const effects = (transition: string, sign: '+' | '-') => {
    const rows = live(transition);
    return `
    insert into location_versions (user_id, version)
      select distinct user_id, 1 from ${rows} v order by 1
      on conflict (user_id) do update set version = location_versions.version + 1;
    insert into location_dirty (user_id, bucket)
      select distinct r.user_id, ${bucketOf('r').compile(db).sql} from ${rows} r order by 1, 2
      on conflict (user_id, bucket) do update set bucket = excluded.bucket;${cells(rows, sign)}`;
  };
  await sql`create or replace function waypost_location_history() returns trigger language plpgsql as $$
    begin
      if tg_op in ('DELETE', 'UPDATE') then ${sql.raw(effects('old_rows', '-'))} end if;
      if tg_op in ('INSERT', 'UPDATE') then ${sql.raw(effects('new_rows', '+'))} end if;
      return null;
    end $$`.execute(db);
}
