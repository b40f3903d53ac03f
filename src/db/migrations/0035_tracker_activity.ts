// What the Trackers page says of each tracker (docs/trackers.md "The tracker page"), kept on the
// service row as the ingest route sees it, so the page reads no points:
//
// - `last_point_at`: when the last request that stored points arrived (ms);
// - `points_day`, `points_today`: the owner's local day (days since 1970-01-01 in their time
//   zone) of the last stored points, and how many points arrived on that day;
// - `refused_at`, `refused_reason`: the last request refused although it carried a token the
//   tracker had (`replaced_token`: the token before the newest; `switched_off`: the current
//   token while the tracker is switched off);
// - `previous_token_hash`: the SHA-256 of the token a "New token" replaced, to tell a phone
//   still using it from a stranger guessing.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('services').addColumn('last_point_at', 'bigint').execute();
  await db.schema.alterTable('services').addColumn('points_day', 'integer').execute();
  await db.schema
    .alterTable('services')
    .addColumn('points_today', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('services').addColumn('refused_at', 'bigint').execute();
  await db.schema.alterTable('services').addColumn('refused_reason', 'text').execute();
  await db.schema.alterTable('services').addColumn('previous_token_hash', 'text').execute();
}
