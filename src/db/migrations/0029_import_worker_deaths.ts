// An import runs in a child process of its own (docs/imports.md "How an import runs"); when that
// process dies on a file (out of memory, killed), the death is counted here, on the import, so
// that a file that killed its worker twice is failed for good, whatever restarts came between.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('imports')
    .addColumn('worker_deaths', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}
