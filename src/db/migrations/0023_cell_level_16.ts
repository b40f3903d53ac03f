// Cell counts at level 16 besides 6, 9, 12, 15 and 18 (docs/history.md "Tiles"): a zoom-10
// tile draws 64 x 64 cells of level 16, which it summed from up to 256 x 256 cells of level 18
// before (tens of milliseconds for a city tracked every few seconds for ten years). The
// triggers of migration 0012 are made again with the new level, and level 16 is summed from
// level 18 (a level-18 cell's x and y divided by four are its level-16 cell's, exactly).
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { postgresTriggers, sqliteTriggers } from './0012_location_history.ts';

/** The grid levels kept from this migration on (migration 0027 adds 17). */
const CELL_LEVELS = [6, 9, 12, 15, 16, 18] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const trigger of ['locations_history_insert', 'locations_history_delete', 'locations_history_update']) {
      await sql`drop trigger ${sql.id(trigger)}`.execute(db);
    }
    await sqliteTriggers(db, CELL_LEVELS);
  } else {
    // A server of the previous version writing meanwhile would count level 18 and not 16.
    await sql`lock table locations in share mode`.execute(db);
    await postgresTriggers(db, CELL_LEVELS, true);
  }
  await sql`insert into location_cells (user_id, level, cx, cy, points)
    select user_id, 16, cx / 4, cy / 4, sum(points) from location_cells where level = 18
    group by user_id, cx / 4, cy / 4`.execute(db);
}
