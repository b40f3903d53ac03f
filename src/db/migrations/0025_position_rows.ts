// The points of a box by rows of latitude (docs/history.md "Tiles"). The position index of
// migration 0012 ordered a person's points by latitude, then longitude: a box read every point
// of its band of latitude round the world (a zoom-14 tile of a city tracked for ten years read
// 136,608 entries for its 6,760 points). This one puts the latitude's row of 1/64 degree first:
// a small box asks for each of its few rows and, within each, for its range of longitude
// (src/lib/box.repo.ts); a large one reads its band as before. One index for the other:
// writing a point costs the same.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index locations_position`.execute(db);
  await sql`create index locations_position_rows on locations
    (user_id, (floor(lat * 64)), lon, lat, time, scope)`.execute(db);
}
