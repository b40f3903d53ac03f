// PostgreSQL's location trigger (migrations 0012, 0045) computes each written point's cell once,
// at the finest level kept, and the coarser levels from it by shifts, as SQLite's fold of the
// cell log does (src/locations/cells.repo.ts). It computed the Web Mercator cell (a logarithm,
// a tangent and a cosine) once per point per level, seven times, and grouped seven rows a point.
// The trigger is about 40 % of storing an import's batch (35,000 points/s with it, 57,000
// without); for a batch of 2,000 points its cells statement took 13-16 ms to compute and group
// the cells and 22-25 ms with the upsert, now 8-9 ms and 19-21 ms (BENCHMARKS.md). A level-L cell
// is the level-18 cell shifted right by 18 - L, exactly (migration 0027): scaling by a power of
// two is exact in floating point, so the floor of either product names the same cell, and the
// clamp to the grid's last cell shifts to the last cell too. The statements and their order are
// 0045's otherwise; SQLite's triggers are unchanged.
import { SqliteAdapter, type Kysely } from 'kysely';
import { cell } from './0012_location_history.ts';
import { CELL_LEVELS } from './0027_cell_level_17.ts';
import { replaceHistoryFunction } from './0045_location_lock_order.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  const finest = CELL_LEVELS.at(-1)!;
  const levels = CELL_LEVELS.map((level) => `select ${level} as level, ${finest - level} as shift`).join(' union all ');
  const { cx, cy } = cell('r', false, String(finest));
  await replaceHistoryFunction(
    db,
    (rows, sign) => `
    insert into location_cells (user_id, level, cx, cy, points)
      select f.user_id, l.level, f.cx >> l.shift, f.cy >> l.shift, ${sign}sum(f.points)::bigint from (
        select r.user_id, ${cx.compile(db).sql} as cx, ${cy.compile(db).sql} as cy, count(*) as points
        from ${rows} r group by 1, 2, 3) f cross join (${levels}) l
      group by f.user_id, l.level, f.cx >> l.shift, f.cy >> l.shift order by 1, 2, 3, 4
      on conflict (user_id, level, cx, cy) do update set points = location_cells.points + excluded.points;`,
  );
}
