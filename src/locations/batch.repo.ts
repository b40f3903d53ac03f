// Writing many points with the history's per-row work done once per batch (migration 0050,
// docs/history.md "Writing points in batches"). On SQLite the insert triggers stand aside while
// the batch marker is in place; the rows a batch added are the ones past the table's last rowid
// before it (SQLite gives a new row the highest rowid plus one, and has one writer at a time),
// and grouped statements over them write what the triggers would have: the person's version, the
// quarter hours to refresh, the cells, and the counters of shown points. PostgreSQL's triggers
// already run once per statement: there the write just runs. The statements read the new rows by
// their rowids (`not indexed`): left to choose, SQLite's planner scans a whole index for the
// grouping instead.
import { SqliteAdapter, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { bucketOf, cell } from '../db/migrations/0012_location_history.ts';
import { SHOWN } from '../db/migrations/0019_privacy_zones.ts';

const { cx, cy } = cell('n', true, '18');

/** The triggers' work for the rows past rowid `after`, in the order the triggers do it. */
const batchEffects = (after: number) => [
  sql`insert into location_versions (user_id, version)
    select distinct user_id, 1 from locations not indexed where rowid > ${after}
    on conflict (user_id) do update set version = version + 1`,
  sql`insert into location_dirty (user_id, bucket)
    select distinct n.user_id, ${bucketOf('n')} from locations n not indexed where n.rowid > ${after}
    on conflict do nothing`,
  sql`insert into location_cell_log (user_id, cx, cy, points)
    select user_id, cx, cy, count(*) from
      (select n.user_id, ${cx} as cx, ${cy} as cy from locations n not indexed where n.rowid > ${after})
    group by user_id, cx, cy`,
  sql`update users set items_version = items_version + 1, public_locations = public_locations + c.shown
    from (select n.user_id, count(*) as shown from locations n not indexed where n.rowid > ${after} and ${SHOWN('n')}
      group by n.user_id) as c
    where users.id = c.user_id`,
];

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

/**
 * Runs `write`, which inserts points in the caller's transaction `trx`, as one batch: on SQLite
 * the per-row triggers' work is done after it for all the rows it added, grouped. The caller
 * folds the cell log as after any write (src/locations/cells.repo.ts).
 */
export async function writeBatch<T>(trx: Db, write: () => Promise<T>): Promise<T> {
  if (!isSqlite(trx)) return write();
  if (!trx.isTransaction) throw new Error('a batch of points is written in a transaction');
  const { rows } = await sql<{ last: number }>`select coalesce(max(rowid), 0) as last from locations`.execute(trx);
  const after = rows[0]!.last;
  await sql`insert into location_batch (active) values (1)`.execute(trx);
  const result = await write();
  await sql`delete from location_batch`.execute(trx);
  for (const statement of batchEffects(after)) await statement.execute(trx);
  return result;
}
