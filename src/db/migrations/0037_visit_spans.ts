// The detector's own visits, before the person's corrections (docs/history.md "Stored, and
// refreshed where the points changed"): `visit_spans` holds when each one began and ended, all
// that choosing the stretch to detect again needs. The stored visits cannot tell it: a merge,
// a split or "not a stay" changed them. Every day with points is marked, so the visits are
// detected again once, in the background, and the spans filled.
// (`where true`: SQLite reads an upsert after a bare select's `from` as a join.)
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('visit_spans')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('start_time', 'bigint', (col) => col.notNull())
    .addColumn('end_time', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('visit_spans_pk', ['user_id', 'start_time'])
    .execute();
  await sql`insert into visit_marks (user_id, day)
    select distinct user_id, cast(floor(time / 86400000.0) as integer) from locations where true
    on conflict (user_id, day) do nothing`.execute(db);
}
