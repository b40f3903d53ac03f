// Imports (docs/imports.md): one row per file brought in, and the import each location came
// from, so an import can be undone without touching a point another source stored first
// (locations dedupe on (user_id, time, lat, lon): a point already there keeps its origin).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('imports')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('filename', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    // Where the file is; `file_owned` = 1 when it is a copy in the data folder that is ours to delete.
    .addColumn('file_path', 'text', (col) => col.notNull())
    .addColumn('file_owned', 'integer', (col) => col.notNull())
    .addColumn('progress', 'double precision', (col) => col.notNull())
    .addColumn('points_seen', 'bigint', (col) => col.notNull())
    .addColumn('points_stored', 'bigint', (col) => col.notNull())
    .addColumn('duplicates', 'bigint', (col) => col.notNull())
    .addColumn('skipped', 'bigint', (col) => col.notNull())
    // How many of the reader's records are committed: a restarted job skips that many.
    .addColumn('checkpoint', 'bigint', (col) => col.notNull())
    .addColumn('errors', 'text', (col) => col.notNull()) // JSON array, the first 100
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('imports_user').on('imports').columns(['user_id', 'created_at', 'id']).execute();

  await db.schema.alterTable('locations').addColumn('import_id', 'text').execute();
  await db.schema.createIndex('locations_import').on('locations').columns(['user_id', 'import_id']).execute();
}
