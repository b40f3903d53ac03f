// PostgreSQL reads a tile's cell counts from the index alone (docs/history.md "Tiles"). The
// primary key of location_cells held the cell but not its count, so every cell summed was a
// visit to the table's page for it: the rows lie in the order they were first written, and a
// zoom-7 tile of a city tracked for ten years read 15,251 cells from about as many pages
// (150 ms with the pages not in shared buffers, p99 96 ms in bench:history at ten million
// points; 11 ms from the index). The key now carries `points` as an included column: the
// same key, so the upserts of the triggers find their conflicts as before, and their cost
// did not change measurably (about 31,000 points/s through the triggers either way).
// SQLite keeps its key: every zoom was under 30 ms there at ten million points.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter table location_cells drop constraint location_cells_pk,
    add constraint location_cells_pk primary key (user_id, level, cx, cy) include (points)`.execute(db);
}
