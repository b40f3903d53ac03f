import { CompiledQuery, SqliteAdapter } from 'kysely';
import { insertManyIgnoringConflicts } from '../db/bulk.ts';
import type { Db } from '../db/database.ts';
import type { LocationsTable, ScopeValue } from '../db/schema.ts';
import { selectKeptPage, selectPageOf, type Audience, type PageQuery } from '../items/items.repo.ts';
import type { Box } from '../lib/box.ts';
import { boxFilter } from '../lib/box.repo.ts';
import { writeBatch } from './batch.repo.ts';
import { foldCellLog } from './cells.repo.ts';
import type { PlaceFilter } from '../privacy/served-box.ts';
import { hideRulesForWrite } from '../privacy/places.ts';
import { placeFilter } from '../privacy/served-box.repo.ts';

export type LocationRow = LocationsTable;

/** A page of points, with only the columns their objects are made from. */
export function selectLocationPage(db: Db, audience: Audience, page: PageQuery, box: Box | undefined) {
  return selectPageOf(db, 'locations', audience, page, LOCATION_FIELDS, box ? boxFilter(box) : undefined);
}

/** The columns a point's API object is made from (`toLocation`): what a page and a download read. */
export const LOCATION_FIELDS = [
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
] as const satisfies readonly (keyof LocationRow)[];
export type LocationFields = Pick<LocationRow, (typeof LOCATION_FIELDS)[number]>;

/** The columns an insert writes: the point's, its owner, its import (if any) and whether a privacy zone hides it. */
const LOCATION_COLUMNS = [
  'user_id',
  ...LOCATION_FIELDS,
  'import_id',
  'hidden',
] as const satisfies readonly (keyof LocationRow)[];

const KEY = ['user_id', 'time', 'lat', 'lon'] as const;
/**
 * From this many points a write does the history's work once for them all (src/locations/batch.repo.ts);
 * below it, the six statements that costs are more than the per-row triggers' (BENCHMARKS.md).
 */
export const BATCH_FROM = 8;

/**
 * Inserts a batch in one statement (atomic); a point already stored is skipped. Returns how many
 * were new. Each point's `hidden` flag is set here, from its owner's privacy zones read in the
 * same transaction (src/privacy/places.ts), whatever the caller passed.
 */
export async function insertLocations(db: Db, rows: LocationRow[]): Promise<number> {
  const [stored] = await insertLocationBatches(db, [rows]);
  return stored!;
}

/**
 * Inserts batches as `insertLocations` does each, in one transaction, with the history's work
 * done once for them all. On SQLite: a statement and a count per batch, then one batch for the
 * triggers' work (src/locations/batch.repo.ts) and one fold of the cell log, so the batches of a
 * shared commit that cross the same cells add to each cell once. On PostgreSQL, whose triggers
 * run once per statement: one statement for every batch (`insertAllPostgres`). Returns how many
 * of each batch were new.
 */
async function insertLocationBatches(db: Db, batches: LocationRow[][]): Promise<number[]> {
  if (!db.isTransaction) return db.transaction().execute((trx) => insertLocationBatches(trx, batches));
  const rules = await hideRulesForWrite(
    db,
    batches.flatMap((rows) => rows.map((row) => row.user_id)),
  );
  const flagged = batches.map((rows) =>
    rows.map((row) => ({
      ...row,
      import_id: row.import_id ?? null,
      hidden: rules.get(row.user_id)?.(row.lat, row.lon) ? 1 : 0,
    })),
  );
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return insertAllPostgres(db, flagged);
  const insertEach = async () => {
    const stored: number[] = [];
    for (const rows of flagged) {
      stored.push(await insertManyIgnoringConflicts(db, 'locations', LOCATION_COLUMNS, rows, KEY));
    }
    return stored;
  };
  const points = batches.reduce((sum, rows) => sum + rows.length, 0);
  const stored = points >= BATCH_FROM ? await writeBatch(db, insertEach) : await insertEach();
  await foldCellLog(db);
  return stored;
}

/** The type of each of `LOCATION_COLUMNS` as an array, in their order. */
const POSTGRES_ARRAYS: Record<(typeof LOCATION_COLUMNS)[number], string> = {
  user_id: 'text[]',
  id: 'text[]',
  scope: 'text[]',
  time: 'bigint[]',
  created_at: 'bigint[]',
  lat: 'float8[]',
  lon: 'float8[]',
  alt: 'float8[]',
  accuracy: 'float8[]',
  speed: 'float8[]',
  heading: 'float8[]',
  source: 'text[]',
  import_id: 'text[]',
  hidden: 'integer[]',
};

/**
 * Every batch in one statement, its columns as arrays: one fixed text, so PostgreSQL parses
 * fourteen parameters instead of fourteen a point, and its statement triggers run once for the
 * whole commit. The ids of the new rows come back, and each batch counts its own; a point that
 * two batches both carry is stored once, for the first of them.
 */
const POSTGRES_INSERT = `insert into locations (${LOCATION_COLUMNS.join(', ')})
  select * from unnest(${LOCATION_COLUMNS.map((column, i) => `$${i + 1}::${POSTGRES_ARRAYS[column]}`).join(', ')})
  on conflict (${KEY.join(', ')}) do nothing returning id`;

async function insertAllPostgres(db: Db, batches: LocationRow[][]): Promise<number[]> {
  const rows = batches.flat();
  const columns = LOCATION_COLUMNS.map((column) => rows.map((row) => row[column]));
  const { rows: inserted } = await db.executeQuery<{ id: string }>(CompiledQuery.raw(POSTGRES_INSERT, columns));
  const stored = new Set(inserted.map((row) => row.id));
  return batches.map((batch) => batch.filter((row) => stored.has(row.id)).length);
}

interface Waiting {
  rows: LocationRow[];
  resolve: (stored: number) => void;
  reject: (error: unknown) => void;
}

/** Per database: batches waiting for the next commit, and whether one is under way. */
const queues = new WeakMap<Db, { waiting: Waiting[]; busy: boolean }>();

/**
 * `insertLocations` with group commit: the batches of requests that arrive while a commit is
 * under way are written together in the next transaction (a count per batch, and the history's
 * work once for them all: `insertLocationBatches`), so many small batches share one durable
 * commit instead of queueing for one each
 * (SQLite has one writer, and each commit waits for the disk). Each promise resolves only
 * once its rows are committed; every batch is still all or nothing. Should the shared
 * transaction fail, each batch is retried alone, so only the faulty one is refused. Inside a
 * caller's transaction this is a plain insert in it.
 */
export function insertLocationsGrouped(db: Db, rows: LocationRow[]): Promise<number> {
  if (rows.length === 0) return Promise.resolve(0);
  if (db.isTransaction) return insertLocations(db, rows);
  let queue = queues.get(db);
  if (!queue) {
    queue = { waiting: [], busy: false };
    queues.set(db, queue);
  }
  const promise = new Promise<number>((resolve, reject) => queue.waiting.push({ rows, resolve, reject }));
  if (!queue.busy) void commitWaiting(db, queue);
  return promise;
}

async function commitWaiting(db: Db, queue: { waiting: Waiting[]; busy: boolean }): Promise<void> {
  queue.busy = true;
  // Let the requests whose bodies are already read join this commit.
  await new Promise((resolve) => setImmediate(resolve));
  while (queue.waiting.length > 0) {
    const group = queue.waiting.splice(0);
    try {
      const counts = await insertLocationBatches(
        db,
        group.map((batch) => batch.rows),
      );
      group.forEach((batch, index) => batch.resolve(counts[index] ?? 0));
    } catch {
      for (const batch of group) await insertLocations(db, batch.rows).then(batch.resolve, batch.reject);
    }
  }
  queue.busy = false;
}

/** A page of the points `place` keeps (src/items/items.repo.ts `selectKeptPage`). */
export function selectKeptLocationPage(db: Db, audience: Audience, page: PageQuery, place: PlaceFilter) {
  return selectKeptPage(db, 'locations', audience, page, placeFilter(db, place), place.keeps);
}

/** Deletes the person's points with `sinceMs <= time < untilMs` in `scopes`; how many went. */
export async function deleteLocationRange(
  db: Db,
  userId: string,
  range: { sinceMs: number; untilMs: number; scopes: ScopeValue[] },
): Promise<number> {
  const result = await db
    .deleteFrom('locations')
    .where('user_id', '=', userId)
    .where('time', '>=', range.sinceMs)
    .where('time', '<', range.untilMs)
    .where('scope', 'in', range.scopes)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
