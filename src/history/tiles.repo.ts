// The owner's tiles from the cell counts the triggers of migration 0012 keep (on SQLite through
// the log of migration 0026, folded before they are read).
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { CELL_LEVELS } from '../db/migrations/0027_cell_level_17.ts';
import { foldCellLog } from '../locations/cells.repo.ts';

export const FINEST_LEVEL = CELL_LEVELS.at(-1)!;

/** The coarsest kept level at least as fine as `level`. */
function keptLevel(level: number): number {
  return CELL_LEVELS.find((kept) => kept >= level) ?? FINEST_LEVEL;
}

/** Where a tile's cells of a kept level lie: the level and the ranges of cx and cy. */
function cellRange(z: number, x: number, y: number, level: number) {
  const shift = level - z;
  return { x0: x * 2 ** shift, x1: (x + 1) * 2 ** shift, y0: y * 2 ** shift, y1: (y + 1) * 2 ** shift };
}

/** Points of a tile (z at most the finest level), summed from the cells within it. */
export async function tileCount(db: Db, userId: string, z: number, x: number, y: number): Promise<number> {
  await foldCellLog(db);
  const level = keptLevel(z);
  const r = cellRange(z, x, y, level);
  const { rows } = await sql<{ n: number | null }>`select sum(points) as n from location_cells
    where user_id = ${userId} and level = ${level} and cx >= ${r.x0} and cx < ${r.x1} and cy >= ${r.y0} and cy < ${r.y1}`.execute(
    db,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * A tile's points per cell of `outLevel` (at least z, at most the finest kept level), summed
 * in SQL from the next finer kept level.
 */
export async function tileCells(
  db: Db,
  userId: string,
  tile: { z: number; x: number; y: number },
  outLevel: number,
): Promise<{ cx: number; cy: number; points: number }[]> {
  await foldCellLog(db);
  const level = keptLevel(outLevel);
  const r = cellRange(tile.z, tile.x, tile.y, level);
  const shift = sql.lit(level - outLevel);
  const { rows } = await sql<{
    cx: number;
    cy: number;
    points: number;
  }>`select cx >> ${shift} as cx, cy >> ${shift} as cy,
      sum(points) as points from location_cells
    where user_id = ${userId} and level = ${level} and cx >= ${r.x0} and cx < ${r.x1} and cy >= ${r.y0} and cy < ${r.y1}
      and points > 0
    group by 1, 2`.execute(db);
  return rows.map((row) => ({ cx: Number(row.cx), cy: Number(row.cy), points: Number(row.points) }));
}

/** The owner's version: moved by every write of their locations, private ones included. */
export async function locationVersion(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('location_versions')
    .select('version')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** The first and last time of a person's points (ms), of one scope or both. */
export async function timeSpan(db: Db, userId: string): Promise<{ first: number; last: number } | undefined> {
  const { rows } = await sql<{ first: number | null; last: number | null }>`select
      (select min(time) from locations where user_id = ${userId}) as first,
      (select max(time) from locations where user_id = ${userId}) as last`.execute(db);
  const row = rows[0];
  if (!row || row.first === null || row.last === null) return undefined;
  return { first: Number(row.first), last: Number(row.last) };
}
