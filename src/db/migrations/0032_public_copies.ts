// What strangers are told of a public medium's file: the hash and size of its public copy (the
// file without metadata they are served), never the original's (docs/privacy.md "Media files").
// The copy is made once per content, beside the original, so its facts are kept per original
// hash, written when the copy is first served and removed with it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('public_copies')
    .addColumn('sha256', 'text', (col) => col.primaryKey())
    .addColumn('copy_sha256', 'text', (col) => col.notNull())
    .addColumn('copy_size', 'bigint', (col) => col.notNull())
    .execute();
}
