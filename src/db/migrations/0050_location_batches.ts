// SQLite's per-row work on locations, done once per batch by a writer that asks for it
// (docs/history.md "Writing points in batches"). The triggers of migrations 0019 and 0026 write,
// for every point, the person's version, its quarter hour, its cell and, for a shown point, the
// counters: four statements a point, which made storing a point cost three times a bare insert
// (bench/insert-cost.ts). A writer of many points (an import's batch, a tracker's batch) now
// puts a row in `location_batch` inside its transaction; while it is there the insert triggers
// stand aside, and the writer does their work for all its new rows at once, in grouped
// statements (src/locations/batch.repo.ts), before its commit. SQLite has one writer at a time
// and the marker is gone again before the commit, so no other writer ever sees it.
// PostgreSQL's triggers already run once per statement, over its rows: unchanged there.
import { SqliteAdapter, sql, type Kysely } from 'kysely';
import { SHOWN, bumpCounters } from './0019_privacy_zones.ts';
import { bump, effects } from './0026_cell_log.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`create table location_batch (active integer primary key check (active = 1))`.execute(db);
  const alone = sql`not exists (select 1 from location_batch)`;
  await sql`drop trigger locations_history_insert`.execute(db);
  await sql`create trigger locations_history_insert after insert on locations when ${alone}
    begin ${bump('new')} ${effects('new', '+')} end`.execute(db);
  await sql`drop trigger locations_counters_insert`.execute(db);
  await sql`create trigger locations_counters_insert after insert on locations
    when ${SHOWN('new')} and ${alone} begin ${bumpCounters('new', '+')} end`.execute(db);
}
