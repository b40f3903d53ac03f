// Folding the cell log into the cell counts (migration 0026, docs/history.md "Tiles"). On SQLite
// the triggers log each written point's level-18 cell; this adds the log up per cell of every
// kept level and empties it, in the caller's transaction or one of its own. Writers of points
// call it after each batch, so a batch of a thousand points costs a few grouped upserts; readers
// of location_cells call it first. PostgreSQL keeps its cells without a log: nothing to do.
import { SqliteAdapter, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { CELL_LEVELS } from '../db/migrations/0027_cell_level_17.ts';

const FINEST = CELL_LEVELS.at(-1)!;
const LEVELS = CELL_LEVELS.map((level) => `select ${FINEST - level} as shift, ${level} as level`).join(' union all ');

/** The fold, two statements without parameters (bench/insert-cost.ts runs them as writers do). */
export const FOLD_SQL = [
  `insert into location_cells (user_id, level, cx, cy, points)
    select g.user_id, l.level, g.cx >> l.shift, g.cy >> l.shift, sum(g.points)
    from location_cell_log g cross join (${LEVELS}) l where true
    group by g.user_id, l.level, g.cx >> l.shift, g.cy >> l.shift
    on conflict (user_id, level, cx, cy) do update set points = location_cells.points + excluded.points`,
  'delete from location_cell_log',
];

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

/** Adds the logged cells to location_cells and empties the log (SQLite; nothing on PostgreSQL). */
export async function foldCellLog(db: Db): Promise<void> {
  if (!isSqlite(db)) return;
  if (!db.isTransaction) {
    // A read first: a reader finding the log empty takes no write lock.
    const { rows } = await sql<{
      logged: number;
    }>`select exists (select 1 from location_cell_log) as logged`.execute(db);
    if (!rows[0]?.logged) return;
    return db.transaction().execute((trx) => foldCellLog(trx));
  }
  for (const statement of FOLD_SQL) await sql.raw(statement).execute(db);
}
