// Two writers of one person's points at once (migration 0045): one transaction that writes in
// two statements (a tracker's batches sharing a commit, an import's batch) while another's
// statement comes in between, touching the quarter hour and the cells the first one's second
// statement needs. On PostgreSQL the second waited on the person's version row while holding
// those, and the first's second statement waited on it: a deadlock, one transaction failed
// after a second (found by `npm run test:nodes`, docs/scaling.md). Now both commit. SQLite
// has one writer: there the two run one after the other, to the same end.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, DIALECT, type TestApp } from '../../test/helpers.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { newId } from '../lib/ids.ts';
import { insertLocations, type LocationRow } from './locations.repo.ts';

let t: TestApp;
let other: Database;
let userId: string;

beforeAll(async () => {
  t = await buildTestApp();
  other = t.databaseUrl ? openDatabase({ url: t.databaseUrl, poolSize: 1 }) : t.database;
  userId = (await createTestUser(t.database)).id;
});
afterAll(async () => {
  if (other !== t.database) await other.close();
  await t.close();
});

const HOUR = Date.UTC(2024, 5, 1, 12);
const point = (lat: number, lon: number, time: number): LocationRow => ({
  user_id: userId,
  id: newId(),
  scope: 'private',
  time,
  created_at: time,
  lat,
  lon,
  alt: null,
  accuracy: null,
  speed: null,
  heading: null,
  source: null,
});

/** Until another session of this database waits for a lock (the second writer is blocked). */
async function someoneWaits(): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(t.database.db);
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the second writer never waited');
}

describe('two writers of one person’s points', () => {
  it('both commit, whichever statement comes between the other’s two', async () => {
    // The first writes in Munich, then in Lisbon a quarter of an hour on; the second writes in
    // Lisbon in that same quarter hour, between the first's two statements.
    const munich = point(48.137, 11.575, HOUR);
    const lisbon = point(38.722, -9.139, HOUR + 15 * 60_000 + 1000);
    const nearLisbon = point(38.7221, -9.1391, HOUR + 15 * 60_000 + 2000);
    let second: Promise<number> | undefined;
    const first = t.database.db.transaction().execute(async (trx) => {
      await insertLocations(trx, [munich]);
      if (DIALECT === 'postgres') {
        second = insertLocations(other.db, [nearLisbon]);
        await someoneWaits();
      }
      return insertLocations(trx, [lisbon]);
    });
    expect(await first).toBe(1);
    expect(await (second ?? insertLocations(other.db, [nearLisbon]))).toBe(1);

    const cells = await t.database.db
      .selectFrom('location_cells')
      .select(['cx', 'cy', 'points'])
      .where('user_id', '=', userId)
      .where('level', '=', 6)
      .orderBy('cx')
      .execute();
    expect(cells.map((cell) => Number(cell.points))).toEqual([2, 1]);
    const version = await t.database.db
      .selectFrom('location_versions')
      .select('version')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number(version.version)).toBe(3);
  });
});
