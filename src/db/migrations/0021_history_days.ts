// Statistics per local day (docs/history.md "Statistics"), so a month or a year over ten years
// adds up a few thousand days instead of every quarter hour with points:
//
// - `location_days`: a person's quarter hours (location_buckets) summed per day of their time
//   zone, the day numbered from 1970-01-01 in that zone.
// - `location_day_zones`: the zone the days were summed in, with the time-zone rules' version
//   (a Node release may move an offset); a person whose zone differs is summed again whole.
// - `location_day_marks`: the UTC days whose quarter hours were recomputed since the days were
//   last summed; the local days around them are summed again when statistics are read.
//
// All three are written by the statistics (src/history/stats.repo.ts), never by a trigger, so
// they go with the person through an ordinary cascade. An existing install has no zone row:
// the first statistics read sums every day.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  let days = db.schema
    .createTable('location_days')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (col) => col.notNull())
    .addColumn('points', 'bigint', (col) => col.notNull())
    .addColumn('distance_m', 'double precision', (col) => col.notNull());
  for (const column of ['min_lat', 'max_lat', 'min_lon', 'max_lon', 'min_lon360', 'max_lon360']) {
    days = days.addColumn(column, 'double precision', (col) => col.notNull());
  }
  await days.addPrimaryKeyConstraint('location_days_pk', ['user_id', 'day']).execute();
  await db.schema
    .createTable('location_day_zones')
    .addColumn('user_id', 'text', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('zone', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('location_day_marks')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('location_day_marks_pk', ['user_id', 'day'])
    .execute();
}
