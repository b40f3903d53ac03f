// The points of a box by cells of 1/256 degree, each cell's points in time order (docs/history.md
// "Tiles"). The index of migration 0025 ordered a row of latitude's points by longitude: the
// points a tracker sends in one batch, a few minutes of one path, each landed on a page of that
// index of its own, and that index was half the cost of storing them (a durable batch of 1,000
// points into a ten-year history: 29.8 ms and 5,157 KiB of log, 15.5 ms and 1,769 KiB without
// it; with this one, 20.4 ms and 2,936 KiB: `npm run bench:position-index`, BENCHMARKS.md).
// Keyed by cell and then time, the batch appends to the ends of the few cells its path crosses.
// A box still seeks: each of its rows of cells, in each the range of cells of its longitudes,
// then the exact box over those cells' points (src/lib/box.repo.ts). `hidden` is in the index
// too, so a public box is read from the index alone.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index locations_position_rows`.execute(db);
  await sql`create index locations_position_cells on locations
    (user_id, (floor(lat * 256)), (floor(lon * 256)), time, lat, lon, scope, hidden)`.execute(db);
  // PostgreSQL keeps statistics of an index's expressions only from the table's next ANALYZE;
  // until then it guesses how many points a row of cells holds. A sample of the table, so quick.
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) await sql`analyze locations`.execute(db);
}
