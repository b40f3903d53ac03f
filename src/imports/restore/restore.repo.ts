// The SQL of a restore: who holds the ids an archive names, and the inserts of what it brings
// back (rows as the API's own writes make them; triggers keep counters and history).
import type { Db } from '../../db/database.ts';
import { hideRulesForWrite } from '../../privacy/places.ts';
import type { DeliveriesTable, LocationsTable } from '../../db/schema.ts';
import { foldCellLog } from '../../locations/cells.repo.ts';

/** Tables whose rows keep their ids across a restore. */
export type RestoredTable = 'posts' | 'media' | 'locations' | 'views' | 'services' | 'service_groups';

/** Who holds each of `ids` in `table` (ids nobody holds are absent). */
export async function idHolders(db: Db, table: RestoredTable, ids: readonly string[]): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  // PostgreSQL and SQLite both take a few thousand parameters comfortably.
  for (let start = 0; start < ids.length; start += 1000) {
    const rows = await db
      .selectFrom(table)
      .select(['id', 'user_id'])
      .where('id', 'in', ids.slice(start, start + 1000))
      .execute();
    for (const row of rows) holders.set(row.id, row.user_id);
  }
  return holders;
}

/** Of `ids`, those that are the person's own in `table`. */
export async function ownIds(
  db: Db,
  table: RestoredTable,
  userId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where('user_id', '=', userId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Whether one of the person's own media has this content (a file they hold already). */
export async function ownsContent(db: Db, userId: string, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('media')
    .select('id')
    .where('user_id', '=', userId)
    .where('sha256', '=', sha256)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Inserts points; one already stored at the same time and place is passed over. Returns how many
 * were new. Inside a transaction: each point's `hidden` flag comes from its owner's privacy zones
 * as they are in that transaction (docs/privacy.md), as for every other way points get in.
 */
export async function insertLocations(trx: Db, rows: LocationsTable[]): Promise<number> {
  if (rows.length === 0) return 0;
  const rules = await hideRulesForWrite(
    trx,
    rows.map((row) => row.user_id),
  );
  const flagged = rows.map((row) => ({ ...row, hidden: rules.get(row.user_id)?.(row.lat, row.lon) ? 1 : 0 }));
  let inserted = 0;
  for (let start = 0; start < flagged.length; start += 500) {
    const result = await trx
      .insertInto('locations')
      .values(flagged.slice(start, start + 500))
      .onConflict((oc) => oc.columns(['user_id', 'time', 'lat', 'lon']).doNothing())
      .executeTakeFirst();
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  await foldCellLog(trx);
  return inserted;
}

/** Delivery records of restored posts; one for the same post and service is passed over. */
export async function insertDeliveryRecords(db: Db, rows: DeliveriesTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['user_id', 'post_id', 'service_id']).doNothing())
    .execute();
}
