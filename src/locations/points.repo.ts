// Reading many location rows without holding many: keyset batches on (time, id). Each batch
// is one complete query, so nothing stays open between them: a reader that stops (a client
// gone halfway through a download) leaves no statement, cursor or connection behind, on
// either database, and memory holds one batch at a time.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import type { Box } from '../lib/box.ts';
import { boxFilter } from '../lib/box.repo.ts';
import type { LocationRow } from './locations.repo.ts';
import { keysetBatches } from '../db/batches.ts';

export const BATCH_ROWS = 5000;

/** The columns of a point's time and position (statistics, tiles, tracks). */
export const POSITION = ['time', 'lat', 'lon'] as const;

export interface PointsQuery {
  userId: string;
  /** Only this scope; undefined: both (the owner's whole history). */
  scope?: ScopeValue | undefined;
  sinceMs?: number | undefined;
  untilMs?: number | undefined;
  /** Exact coordinates within this box (src/lib/box.ts); minLon > maxLon crosses the antimeridian. */
  box?: Box | undefined;
}

function conditions(query: PointsQuery): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [sql<SqlBool>`user_id = ${query.userId}`];
  if (query.scope) where.push(sql<SqlBool>`scope = ${query.scope}`);
  // Public points are for strangers: less those a privacy zone hides (docs/privacy.md).
  if (query.scope === 'public') where.push(sql<SqlBool>`hidden = 0`);
  if (query.sinceMs !== undefined) where.push(sql<SqlBool>`time >= ${query.sinceMs}`);
  if (query.untilMs !== undefined) where.push(sql<SqlBool>`time < ${query.untilMs}`);
  if (query.box) where.push(boxFilter(query.box));
  return where;
}

/**
 * Every matching row, oldest first, in batches of `batchRows`, with the columns asked for (and
 * `time` and `id`, the keyset's). A batch is the consumer's until it asks for the next one.
 */
export function eachBatch<C extends keyof LocationRow>(
  db: Db,
  query: PointsQuery,
  columns: readonly C[],
  batchRows = BATCH_ROWS,
): AsyncGenerator<Pick<LocationRow, C | 'time' | 'id'>[]> {
  const selected = sql.join(
    [...new Set<keyof LocationRow>(['time', 'id', ...columns])].map((column) => sql.ref(column)),
  );
  return keysetBatches(async (after) => {
    const where = conditions(query);
    if (after) where.push(sql<SqlBool>`(time, id) > (${after.time}, ${after.id})`);
    const { rows } = await sql<Pick<LocationRow, C | 'time' | 'id'>>`select ${selected} from locations
      where ${sql.join(where, sql` and `)} order by time, id limit ${batchRows}`.execute(db);
    return rows;
  }, batchRows);
}

/** The last point before `beforeMs` (the start of a segment into a range). */
export async function pointBefore(db: Db, userId: string, beforeMs: number): Promise<LocationRow | undefined> {
  const { rows } = await sql<LocationRow>`select * from locations where user_id = ${userId} and time < ${beforeMs}
    order by time desc, id desc limit 1`.execute(db);
  return rows[0];
}

/** Time and position of the points in a box (for a high-zoom tile, at most a few thousand). */
export async function pointsInBox(
  db: Db,
  query: PointsQuery & { box: NonNullable<PointsQuery['box']> },
): Promise<{ time: number; lat: number; lon: number }[]> {
  const { rows } = await sql<{ time: number; lat: number; lon: number }>`select time, lat, lon from locations
    where ${sql.join(conditions(query), sql` and `)}`.execute(db);
  return rows;
}
