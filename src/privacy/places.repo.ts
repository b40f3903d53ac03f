// How a person's public places are shown, and the hidden flags of their points (src/privacy/zones.ts).
import { SqliteAdapter, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LocationsTable } from '../db/schema.ts';
import { boxFilter } from '../lib/box.repo.ts';
import type { Box } from '../lib/box.ts';

const isPostgres = (db: Db) => !(db.getExecutor().adapter instanceof SqliteAdapter);

export interface PlaceSettings {
  precisionM: number;
  /** The stored JSON text of the zones. */
  zones: string;
}

/** The settings that decide how a person's public places are shown; undefined before the first change. */
export async function findPlaceSettings(db: Db, userId: string): Promise<PlaceSettings | undefined> {
  const row = await db
    .selectFrom('user_settings')
    .select(['public_location_precision_m', 'privacy_zones'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && { precisionM: row.public_location_precision_m, zones: row.privacy_zones };
}

/**
 * Before points of these people are written with their hidden flags: on PostgreSQL a key-share
 * lock on each person's row, which a change of the zones (`lockForZoneChange`) waits for and
 * which waits for it, so the flags are always computed from zones the change has either not
 * begun or committed. On SQLite a write transaction already excludes every other writer.
 */
export async function lockForPointWrite(trx: Db, userIds: readonly string[]): Promise<void> {
  if (!isPostgres(trx) || userIds.length === 0) return;
  await sql`select id from users where id in (${sql.join([...new Set(userIds)].sort())})
    order by id for key share`.execute(trx);
}

/** Before a change of the zones or the precision: the counterpart of `lockForPointWrite`. */
export async function lockForZoneChange(trx: Db, userId: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select id from users where id = ${userId} for update`.execute(trx);
}

type Candidate = Pick<LocationsTable, 'id' | 'lat' | 'lon' | 'hidden'>;

/** The person's points that are hidden now or lie in one of `boxes`. */
export async function hiddenCandidates(db: Db, userId: string, boxes: readonly Box[]): Promise<Candidate[]> {
  const hidden = await db
    .selectFrom('locations')
    .select(['id', 'lat', 'lon', 'hidden'])
    .where('user_id', '=', userId)
    .where('hidden', '=', 1)
    .execute();
  const seen = new Set(hidden.map((row) => row.id));
  const found: Candidate[] = [...hidden];
  for (const box of boxes) {
    const { rows } = await sql<Candidate>`select id, lat, lon, hidden from locations
      where user_id = ${userId} and ${boxFilter(box)}`.execute(db);
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      found.push(row);
    }
  }
  return found;
}

/** Rows per statement when flags change. */
const FLAG_BATCH = 500;

export async function setHidden(db: Db, userId: string, ids: readonly string[], hidden: 0 | 1): Promise<void> {
  for (let start = 0; start < ids.length; start += FLAG_BATCH) {
    await db
      .updateTable('locations')
      .set({ hidden })
      .where('user_id', '=', userId)
      .where('id', 'in', ids.slice(start, start + FLAG_BATCH))
      .execute();
  }
}
