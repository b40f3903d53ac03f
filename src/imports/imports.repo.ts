// All SQL of imports: the import rows, and the points an import stores and removes.
import type SQLite from 'better-sqlite3';
import type { Db } from '../db/database.ts';
import type { ImportsTable, LocationsTable } from '../db/schema.ts';
import { foldCellLog } from '../locations/cells.repo.ts';
import type { Fix } from '../locations/point.ts';
import { hideRulesForWrite } from '../privacy/places.ts';

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

/** Points of one batch, column by column (null as NaN), in arrays reused batch after batch. */
export class PointBatch {
  length = 0;
  readonly time: Float64Array;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly alt: Float64Array;
  readonly accuracy: Float64Array;
  readonly speed: Float64Array;
  readonly heading: Float64Array;

  constructor(capacity: number) {
    [this.time, this.lat, this.lon, this.alt, this.accuracy, this.speed, this.heading] = Array.from(
      { length: 7 },
      () => new Float64Array(capacity),
    ) as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
  }

  push(p: Fix): void {
    const i = this.length++;
    this.time[i] = p.timeMs;
    this.lat[i] = p.lat;
    this.lon[i] = p.lon;
    this.alt[i] = p.alt ?? NaN;
    this.accuracy[i] = p.accuracy ?? NaN;
    this.speed[i] = p.speed ?? NaN;
    this.heading[i] = p.heading ?? NaN;
  }

  clear(): void {
    this.length = 0;
  }
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
const INSERT_SQL = `insert into locations
  (user_id, scope, import_id, created_at, id, time, lat, lon, alt, accuracy, speed, heading, source, hidden)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?)
  on conflict (user_id, time, lat, lon) do nothing`;
const statements = new WeakMap<SQLite.Database, SQLite.Statement>();

// PostgreSQL takes at most 65535 parameters in one statement.
const PG_ROWS_PER_STATEMENT = 1000;

/**
 * Inserts a batch of imported points (ids given) inside the caller's transaction; returns how
 * many were new. On SQLite one prepared statement runs per row on the transaction's connection
 * (`sqlite`, which the transaction holds): much faster than one statement with thousands of
 * parameters built anew.
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
  if (sqlite) {
    let statement = statements.get(sqlite);
    if (!statement) {
      statement = sqlite.prepare(INSERT_SQL);
      statements.set(sqlite, statement);
    }
    let inserted = 0;
    for (let i = 0; i < batch.length; i++) {
      inserted += statement.run(
        user_id,
        scope,
        import_id,
        created_at,
        ids[i],
        batch.time[i],
        batch.lat[i],
        batch.lon[i],
        orNull(batch.alt[i]),
        orNull(batch.accuracy[i]),
        orNull(batch.speed[i]),
        orNull(batch.heading[i]),
        hidden(i),
      ).changes;
    }
    await foldCellLog(trx);
    return inserted;
  }
  let inserted = 0;
  for (let start = 0; start < batch.length; start += PG_ROWS_PER_STATEMENT) {
    const rows: LocationsTable[] = [];
    for (let i = start; i < Math.min(batch.length, start + PG_ROWS_PER_STATEMENT); i++) {
      rows.push({
        user_id,
        id: ids[i]!,
        scope,
        time: batch.time[i]!,
        created_at,
        lat: batch.lat[i]!,
        lon: batch.lon[i]!,
        alt: orNull(batch.alt[i]),
        accuracy: orNull(batch.accuracy[i]),
        speed: orNull(batch.speed[i]),
        heading: orNull(batch.heading[i]),
        source: null,
        import_id,
        hidden: hidden(i),
      });
    }
    const result = await trx
      .insertInto('locations')
      .values(rows)
      .onConflict((oc) => oc.columns(['user_id', 'time', 'lat', 'lon']).doNothing())
      .executeTakeFirst();
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return inserted;
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
