// All SQL of imports: the import rows, and the points an import stores and removes.
import type SQLite from 'better-sqlite3';
import type { Db } from '../db/database.ts';
import type { ImportsTable, LocationsTable } from '../db/schema.ts';

export type ImportRow = ImportsTable;
export type ImportedPointRow = Required<LocationsTable>;

export async function insertImport(db: Db, row: ImportRow): Promise<void> {
  await db.insertInto('imports').values(row).execute();
}

export function findImportRow(db: Db, id: string): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserImportRow(db: Db, userId: string, id: string): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export function listImportRows(db: Db, userId: string): Promise<ImportRow[]> {
  return db
    .selectFrom('imports')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Marks an import running (its first start, or a restart); false when it is no longer queued or running. */
export async function startImportRow(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('imports')
    .set((eb) => ({ status: 'running', started_at: eb.fn.coalesce('started_at', eb.val(now)), updated_at: now }))
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export type ImportProgress = Pick<
  ImportRow,
  'progress' | 'points_seen' | 'points_stored' | 'duplicates' | 'skipped' | 'checkpoint' | 'errors'
>;

/** Records a committed batch of a running import; false when it is running no more (cancelled). */
export async function saveProgress(db: Db, id: string, progress: ImportProgress, now: number): Promise<boolean> {
  const result = await db
    .updateTable('imports')
    .set({ ...progress, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends a running (or, between retries, queued) import. */
export async function finishImportRow(
  db: Db,
  id: string,
  change: Partial<Pick<ImportRow, 'status' | 'progress' | 'errors' | 'finished_at'>>,
  now: number,
): Promise<void> {
  await db
    .updateTable('imports')
    .set({ ...change, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

export async function cancelImportRow(db: Db, id: string, now: number): Promise<void> {
  await db.updateTable('imports').set({ status: 'cancelled', updated_at: now }).where('id', '=', id).execute();
}

export async function deleteImportRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('imports').where('id', '=', id).execute();
}

/** Deletes up to `limit` of the points an import stored; returns how many. */
export async function deleteImportedPoints(db: Db, userId: string, importId: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('locations')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('locations')
        .select('id')
        .where('user_id', '=', userId)
        .where('import_id', '=', importId)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

const COLUMNS = [
  'user_id',
  'id',
  'scope',
  'time',
  'created_at',
  'lat',
  'lon',
  'alt',
  'accuracy',
  'speed',
  'heading',
  'source',
  'import_id',
] as const satisfies readonly (keyof ImportedPointRow)[];

// The unique index on (user_id, time, lat, lon) drops a point that is already stored, whoever
// stored it; that point keeps its origin, so undoing this import leaves it.
const INSERT_SQL = `insert into locations (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})
  on conflict (user_id, time, lat, lon) do nothing`;
const statements = new WeakMap<SQLite.Database, SQLite.Statement>();

// PostgreSQL takes at most 65535 parameters in one statement.
const PG_ROWS_PER_STATEMENT = 1000;

/**
 * Inserts imported points inside the caller's transaction; returns how many were new. On SQLite
 * one prepared statement runs per row on the transaction's connection (`sqlite`, which the
 * transaction holds): much faster than one statement with thousands of parameters built anew.
 */
export async function insertImportedPoints(
  trx: Db,
  sqlite: SQLite.Database | undefined,
  rows: readonly ImportedPointRow[],
): Promise<number> {
  if (sqlite) {
    let statement = statements.get(sqlite);
    if (!statement) {
      statement = sqlite.prepare(INSERT_SQL);
      statements.set(sqlite, statement);
    }
    let inserted = 0;
    for (const row of rows) {
      inserted += statement.run(
        row.user_id,
        row.id,
        row.scope,
        row.time,
        row.created_at,
        row.lat,
        row.lon,
        row.alt,
        row.accuracy,
        row.speed,
        row.heading,
        row.source,
        row.import_id,
      ).changes;
    }
    return inserted;
  }
  let inserted = 0;
  for (let start = 0; start < rows.length; start += PG_ROWS_PER_STATEMENT) {
    const result = await trx
      .insertInto('locations')
      .values(rows.slice(start, start + PG_ROWS_PER_STATEMENT))
      .onConflict((oc) => oc.columns(['user_id', 'time', 'lat', 'lon']).doNothing())
      .executeTakeFirst();
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return inserted;
}
