// Visits, trips and places (docs/history.md "Visits and trips"), kept so that reading a year of
// them is a query:
//
// - `places`: where a person stays, named by them or labelled offline (city, country).
// - `visits`, `trips`: what the detector found in the points, replaced day by day when the
//   points change; a visit's and a trip's id is derived from its start, so a recomputation that
//   finds the same stay gives it the same id.
// - `visit_corrections`: what the person said of a stretch of time (this stay was at that place,
//   split it here, these were one stay, this was no stay); applied after every detection, so a
//   correction survives recomputation.
// - `visit_marks`: the UTC days whose points changed since visits were last detected, written by
//   the statistics' refresh in the transaction that consumes the points' own marks.
// - `jobs_visits_once`: at most one queued detection job per person.
// - `media.location_source`: where a medium's place came from, `exif` or `history`.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('places')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('lat', 'double precision', (col) => col.notNull())
    .addColumn('lon', 'double precision', (col) => col.notNull())
    .addColumn('radius_m', 'double precision', (col) => col.notNull())
    .addColumn('city', 'text')
    .addColumn('country', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('places_user').on('places').column('user_id').execute();

  await db.schema
    .createTable('visits')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('place_id', 'text', (col) => col.notNull())
    .addColumn('start_time', 'bigint', (col) => col.notNull())
    .addColumn('end_time', 'bigint', (col) => col.notNull())
    .addColumn('lat', 'double precision', (col) => col.notNull())
    .addColumn('lon', 'double precision', (col) => col.notNull())
    .addColumn('point_count', 'integer', (col) => col.notNull())
    .addColumn('confidence', 'double precision', (col) => col.notNull())
    .addPrimaryKeyConstraint('visits_pk', ['user_id', 'id'])
    .execute();
  await db.schema.createIndex('visits_time').on('visits').columns(['user_id', 'start_time']).execute();
  // A trip finds the visit it leaves by that visit's end (src/visits/visits.repo.ts relinkTrips).
  await db.schema.createIndex('visits_end').on('visits').columns(['user_id', 'end_time']).execute();
  await db.schema.createIndex('visits_place').on('visits').columns(['user_id', 'place_id']).execute();

  await db.schema
    .createTable('trips')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('start_time', 'bigint', (col) => col.notNull())
    .addColumn('end_time', 'bigint', (col) => col.notNull())
    .addColumn('distance_m', 'double precision', (col) => col.notNull())
    .addColumn('mode', 'text', (col) => col.notNull())
    .addColumn('from_visit_id', 'text')
    .addColumn('to_visit_id', 'text')
    .addPrimaryKeyConstraint('trips_pk', ['user_id', 'id'])
    .execute();
  await db.schema.createIndex('trips_time').on('trips').columns(['user_id', 'start_time']).execute();

  await db.schema
    .createTable('visit_corrections')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('start_time', 'bigint', (col) => col.notNull())
    .addColumn('end_time', 'bigint', (col) => col.notNull())
    .addColumn('place_id', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('visit_corrections_time')
    .on('visit_corrections')
    .columns(['user_id', 'start_time'])
    .execute();

  await db.schema
    .createTable('visit_marks')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('visit_marks_pk', ['user_id', 'day'])
    .execute();
  // Every day with points is detected once, by the job the next write or the next start queues.
  await sql`insert into visit_marks (user_id, day)
    select distinct user_id, cast(floor(time / 86400000.0) as integer) from locations`.execute(db);

  await sql`create unique index jobs_visits_once on jobs (ref) where kind = 'visits' and status = 'queued'`.execute(db);

  await db.schema.alterTable('media').addColumn('location_source', 'text').execute();
  await sql`update media set location_source = 'exif' where lat is not null`.execute(db);
}
