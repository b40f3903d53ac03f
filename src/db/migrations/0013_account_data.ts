// Indexes for taking a person's data out and deleting it (docs/data-ownership.md):
//
// - `media_sha256`: a medium's file is stored once per content hash and may be shared by several
//   media rows of any account; deleting a row asks whether any other row still has the hash.
//   This lookup crosses accounts on purpose, so the index does not lead with user_id.
// - `media_user_sha256`: the export writes each of a person's files once, walking their media
//   in hash order by keyset (no memory of what was written, however many files there are).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('media_sha256').on('media').column('sha256').execute();
  await db.schema.createIndex('media_user_sha256').on('media').columns(['user_id', 'sha256']).execute();
}
