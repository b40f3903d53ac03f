// Cell counts at level 17 as well (docs/history.md "Tiles"): a zoom-11 tile draws 64 x 64 cells
// of level 17, which it summed from up to 128 x 128 cells of level 18 before (20-35 ms for a
// city tracked every few seconds for ten years, the slowest zoom). On SQLite the writers fold
// the cell log into every level listed here (src/locations/cells.repo.ts); on PostgreSQL the
// triggers of migration 0012 are made again with the new level. Level 17 is summed from level 18
// (a level-18 cell's x and y halved are its level-17 cell's, exactly).
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { postgresTriggers } from './0012_location_history.ts';

/** The grid levels kept; src/history/tiles.repo.ts picks among them. */
export const CELL_LEVELS = [6, 9, 12, 15, 16, 17, 18] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite: a point logged and not folded yet is not in level 18 either; its fold adds it to
  // every level here, 17 included.
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    // A server of the previous version writing meanwhile would count level 18 and not 17.
    await sql`lock table locations in share mode`.execute(db);
    await postgresTriggers(db, CELL_LEVELS, true);
  }
  await sql`insert into location_cells (user_id, level, cx, cy, points)
    select user_id, 17, cx / 2, cy / 2, sum(points) from location_cells where level = 18
    group by user_id, cx / 2, cy / 2`.execute(db);
}
