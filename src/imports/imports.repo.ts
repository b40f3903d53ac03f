// All SQL of imports: the import rows, and the points an import stores and removes.
import type SQLite from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ImportsTable, LocationsTable } from '../db/schema.ts';
import { writeBatch } from '../locations/batch.repo.ts';
import { foldCellLog } from '../locations/cells.repo.ts';
import { hideRulesForWrite } from '../privacy/places.ts';
import { cellNumber } from '../lib/box.repo.ts';
import type { PointBatch } from './point-batch.ts';

export type ImportRow = ImportsTable;

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

/** Counts one more death of the import's child process; returns the deaths so far. */
export async function countWorkerDeath(db: Db, id: string, now: number): Promise<number> {
  await db
    .updateTable('imports')
    .set((eb) => ({ worker_deaths: eb('worker_deaths', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .execute();
  const row = await db.selectFrom('imports').select('worker_deaths').where('id', '=', id).executeTakeFirst();
  return row?.worker_deaths ?? 0;
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
  'progress' | 'points_seen' | 'points_stored' | 'duplicates' | 'skipped' | 'checkpoint' | 'errors' | 'items'
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

/** What every point of a batch shares. */
export interface BatchOwner {
  user_id: string;
  scope: LocationsTable['scope'];
  import_id: string;
  created_at: number;
}

const orNull = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? null : value);

// The unique index on (user_id, time, lat, lon) drops a point that is already stored, whoever
// stored it; that point keeps its origin, so undoing this import leaves it.
const COLUMNS =
  '(user_id, scope, import_id, created_at, id, time, lat, lon, alt, accuracy, speed, heading, source, hidden)';
const CONFLICT = 'on conflict (user_id, time, lat, lon) do nothing';
/** Values a row binds on SQLite (source is null). */
const ROW_VALUES = 13;
/** Rows per SQLite statement: one call into the database for many rows, well under its 32766 values. */
const SQLITE_ROWS = 100;
const sqliteInsert = (rows: number) =>
  `insert into locations ${COLUMNS} values ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?)').join(', ')} ${CONFLICT}`;
const statements = new WeakMap<SQLite.Database, { many: SQLite.Statement; one: SQLite.Statement }>();

// PostgreSQL: the whole batch in one statement, its columns as arrays (a fixed text, prepared
// once per connection), so the statement-level triggers run once per batch.
const PG_INSERT = `insert into locations ${COLUMNS}
  select $1, $2, $3, $4, t.id, t.time, t.lat, t.lon, t.alt, t.accuracy, t.speed, t.heading, null, t.hidden
  from unnest($5::text[], $6::bigint[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::float8[],
    $12::float8[], $13::integer[]) as t(id, time, lat, lon, alt, accuracy, speed, heading, hidden)
  ${CONFLICT}`;

/**
 * The batch's points in the order of the position index (`locations_position_cells`: cells of
 * 1/256 degree, then time), the same point's copies in the file's order. The file's points were
 * once inserted as they came, and each one dirtied a page of an index ordered by position
 * (BENCHMARKS.md, "Imports"); in this order, the points of one cell go to the end of that cell
 * together. The other indexes start with the time, which a batch spans narrowly, so the order
 * costs them little.
 */
function positionOrder(batch: PointBatch): number[] {
  const order = Array.from({ length: batch.length }, (_, i) => i);
  const row = (i: number) => cellNumber(batch.lat[i]!);
  const column = (i: number) => cellNumber(batch.lon[i]!);
  // Array.prototype.sort is stable: of two copies of one point, the first in the file is stored.
  return order.sort((a, b) => row(a) - row(b) || column(a) - column(b) || batch.time[a]! - batch.time[b]!);
}

/**
 * Inserts a batch of imported points (ids given) inside the caller's transaction; returns how
 * many were new. Written as bulk loads are: on SQLite, prepared statements of many rows each on
 * the transaction's connection (`sqlite`, which the transaction holds), with the history's
 * per-row work done once for the batch (src/locations/batch.repo.ts); on PostgreSQL, one
 * statement for the whole batch.
 */
export async function insertImportedPoints(
  trx: Db,
  sqlite: SQLite.Database | undefined,
  owner: BatchOwner,
  batch: PointBatch,
  ids: readonly string[],
): Promise<number> {
  const { user_id, scope, import_id, created_at } = owner;
  // Each point's privacy-zone flag, from the zones read in this transaction (src/privacy/places.ts).
  const hides = (await hideRulesForWrite(trx, [user_id])).get(user_id)!;
  const hidden = (i: number) => (hides(batch.lat[i]!, batch.lon[i]!) ? 1 : 0);
  const order = positionOrder(batch);
  if (sqlite) {
    let prepared = statements.get(sqlite);
    if (!prepared) {
      prepared = { many: sqlite.prepare(sqliteInsert(SQLITE_ROWS)), one: sqlite.prepare(sqliteInsert(1)) };
      statements.set(sqlite, prepared);
    }
    const { many, one } = prepared;
    const inserted = await writeBatch(trx, async () => {
      let stored = 0;
      const values: unknown[] = new Array<unknown>(SQLITE_ROWS * ROW_VALUES);
      let i = 0;
      const put = (at: number, n: number) => {
        const row = order[n]!;
        values[at] = user_id;
        values[at + 1] = scope;
        values[at + 2] = import_id;
        values[at + 3] = created_at;
        values[at + 4] = ids[n];
        values[at + 5] = batch.time[row];
        values[at + 6] = batch.lat[row];
        values[at + 7] = batch.lon[row];
        values[at + 8] = orNull(batch.alt[row]);
        values[at + 9] = orNull(batch.accuracy[row]);
        values[at + 10] = orNull(batch.speed[row]);
        values[at + 11] = orNull(batch.heading[row]);
        values[at + 12] = hidden(row);
      };
      for (; i + SQLITE_ROWS <= batch.length; i += SQLITE_ROWS) {
        for (let r = 0; r < SQLITE_ROWS; r++) put(r * ROW_VALUES, i + r);
        stored += many.run(values).changes;
      }
      values.length = ROW_VALUES;
      for (; i < batch.length; i++) {
        put(0, i);
        stored += one.run(values).changes;
      }
      return stored;
    });
    await foldCellLog(trx);
    return inserted;
  }
  const column = <T>(value: (i: number) => T) => Array.from({ length: batch.length }, (_, n) => value(order[n]!));
  const columns = [
    ids,
    column((i) => batch.time[i]),
    column((i) => batch.lat[i]),
    column((i) => batch.lon[i]),
    column((i) => orNull(batch.alt[i])),
    column((i) => orNull(batch.accuracy[i])),
    column((i) => orNull(batch.speed[i])),
    column((i) => orNull(batch.heading[i])),
    column(hidden),
  ];
  const result = await trx.executeQuery(
    CompiledQuery.raw(PG_INSERT, [user_id, scope, import_id, created_at, ...columns]),
  );
  return Number(result.numAffectedRows ?? 0n);
}

/** The status of the imports (with a file of ours) among `ids`. */
export async function importFileStates(db: Db, ids: readonly string[]): Promise<Map<string, ImportRow['status']>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('imports')
    .select(['id', 'status'])
    .where('id', 'in', [...ids])
    .where('file_owned', '=', 1)
    .execute();
  return new Map(rows.map((row) => [row.id, row.status]));
}
