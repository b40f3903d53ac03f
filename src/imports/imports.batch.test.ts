// An import writes its points as a bulk load (src/imports/imports.repo.ts, src/locations/batch.repo.ts):
// many rows a statement, the history's per-row work done once per batch. What it stores must be
// exactly what the per-row way stores. The same file is imported into one database and its
// points written the old way, as a tracker's batches through the per-row triggers, into another;
// after both histories are refreshed, the points, cells, quarter hours, days and counters are
// compared row by row.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { locationStats } from '../history/stats.logic.ts';
import { newIds } from '../lib/ids.ts';
import { foldCellLog } from '../locations/cells.repo.ts';
import { BATCH_FROM, insertLocations, type LocationRow } from '../locations/locations.repo.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { createTestDatabase, createTestUser, DIALECT, type TestDatabase } from '../../test/helpers.ts';
import { seeded } from '../../test/days.ts';
import { importFiles } from './imports.files.ts';
import { createImport } from './imports.logic.ts';
import { runImport } from './imports.run.ts';

const T0 = Date.UTC(2024, 2, 30, 22, 0, 0);
const ZONE = { name: 'home', lat: 48.14, lon: 11.58, radius_m: 400 };

/** A wandering person over three days, a fix a minute; some fixes come twice in the file. */
function fixes(): { lat: number; lon: number; time: number; accuracy: number; altitude?: number }[] {
  const random = seeded(36);
  const out = [];
  let lat = 48.14;
  let lon = 11.58;
  for (let i = 0; i < 4321; i++) {
    lat += (random() - 0.5) * 0.002;
    lon += (random() - 0.5) * 0.003;
    const fix = { lat: Math.round(lat * 1e7) / 1e7, lon: Math.round(lon * 1e7) / 1e7, time: T0 + i * 60_000 };
    out.push(i % 3 === 0 ? { ...fix, accuracy: 5 + (i % 30), altitude: 500 + (i % 7) } : { ...fix, accuracy: 12 });
    if (i % 97 === 0) out.push(out.at(-1)!);
  }
  return out;
}

interface Side {
  test: TestDatabase;
  userId: string;
}

async function side(): Promise<Side> {
  const test = await createTestDatabase();
  await migrateToLatest(test.database);
  const user = await createTestUser(test.database);
  await updateSettings(test.database.db, user.id, { privacyZones: [ZONE] });
  return { test, userId: user.id };
}

/** A point as a tracker writes it, public. */
function trackerRow(userId: string, id: string, createdAt: number, fix: ReturnType<typeof fixes>[number]): LocationRow {
  return {
    user_id: userId,
    id,
    scope: 'public',
    time: fix.time,
    created_at: createdAt,
    lat: fix.lat,
    lon: fix.lon,
    alt: fix.altitude ?? null,
    accuracy: fix.accuracy,
    speed: null,
    heading: null,
    source: null,
    import_id: null,
    hidden: 0,
  };
}

/** Points stored before the import, by a tracker: the import finds them and skips them. */
function earlier(userId: string): LocationRow[] {
  const some = fixes().filter((_, i) => i % 50 === 7);
  const ids = newIds(some.length, T0);
  return some.map((fix, i) => trackerRow(userId, ids[i]!, T0, fix));
}

/** Everything derived from the points, in an order that does not depend on ids. */
async function stored(database: Database, userId: string) {
  // The statistics by day: reading them refreshes the quarter hours, the visits and the days.
  const statistics = await locationStats(database.db, userId, { group_by: 'day' });
  await foldCellLog(database.db);
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(database.db)).rows;
  return {
    points: await rows(sql`select scope, time, lat, lon, alt, accuracy, speed, heading, hidden from locations
      where user_id = ${userId} order by time, lat, lon`),
    cells: await rows(sql`select level, cx, cy, points from location_cells
      where user_id = ${userId} and points <> 0 order by level, cx, cy`),
    buckets: await rows(sql`select * from location_buckets where user_id = ${userId} order by bucket`),
    days: await rows(sql`select * from location_days where user_id = ${userId} order by day`),
    dayZones: await rows(sql`select zone from location_day_zones where user_id = ${userId} order by zone`),
    dirty: await rows(sql`select * from location_dirty where user_id = ${userId}`),
    counters: await rows(sql`select public_locations from users where id = ${userId}`),
    statistics,
  };
}

let batch: Side;
let rowByRow: Side;

beforeAll(async () => {
  [batch, rowByRow] = await Promise.all([side(), side()]);
});
afterAll(async () => {
  await batch.test.database.close();
  await rowByRow.test.database.close();
  await batch.test.drop();
  await rowByRow.test.drop();
});

describe('an import written as a bulk load', () => {
  it('stores exactly what writing the points one by one stores: points, cells, quarter hours, days, counters', async () => {
    const all = fixes();
    const file = join(batch.test.dataDir, 'Records.json');
    writeFileSync(
      file,
      JSON.stringify({
        locations: all.map((fix) => ({
          latitudeE7: Math.round(fix.lat * 1e7),
          longitudeE7: Math.round(fix.lon * 1e7),
          accuracy: fix.accuracy,
          ...(fix.altitude === undefined ? {} : { altitude: fix.altitude }),
          timestamp: new Date(fix.time).toISOString(),
        })),
      }),
    );

    // The new way: the import job's run, in batches of 500 records.
    await insertLocations(batch.test.database.db, earlier(batch.userId));
    const files = importFiles({ dataDir: batch.test.dataDir, storage: { kind: 'local' } });
    const created = await createImport(
      batch.test.database.db,
      { userId: batch.userId, path: file, owned: false, filename: 'Records.json', scope: 'public' },
      { files, now: Date.now() },
    );
    expect(await runImport({ database: batch.test.database, files, batchRecords: 500 }, created.id)).toBe('done');
    const row = await batch.test.database.db
      .selectFrom('imports')
      .select(['points_seen', 'points_stored', 'duplicates'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const unique = new Set(all.map((fix) => `${fix.time}|${fix.lat}|${fix.lon}`)).size;
    expect(row).toEqual({
      points_seen: all.length,
      points_stored: unique - earlier('').length,
      duplicates: all.length - unique + earlier('').length,
    });

    // The old way: the same points as a tracker's small batches, too small to be written as one
    // (BATCH_FROM): each row through the per-row triggers.
    await insertLocations(rowByRow.test.database.db, earlier(rowByRow.userId));
    await rowByRow.test.database.db.transaction().execute(async (trx) => {
      for (let from = 0; from < all.length; from += BATCH_FROM - 1) {
        const chunk = all.slice(from, from + BATCH_FROM - 1);
        const ids = newIds(chunk.length);
        await insertLocations(
          trx,
          chunk.map((fix, i) => trackerRow(rowByRow.userId, ids[i]!, Date.now(), fix)),
        );
      }
    });

    const [got, expected] = await Promise.all([
      stored(batch.test.database, batch.userId),
      stored(rowByRow.test.database, rowByRow.userId),
    ]);
    const withoutUser = (rows: unknown[]) => rows.map((r) => ({ ...(r as object), user_id: undefined }));
    expect(got.points).toHaveLength(unique);
    expect(got.points.filter((p) => (p as { hidden: number }).hidden === 1).length).toBeGreaterThan(0);
    expect(got.cells.length).toBeGreaterThan(0);
    expect(got.days.length).toBe(4);
    expect(got.points).toEqual(expected.points);
    expect(got.cells).toEqual(expected.cells);
    expect(withoutUser(got.buckets)).toEqual(withoutUser(expected.buckets));
    expect(withoutUser(got.days)).toEqual(withoutUser(expected.days));
    expect(got.dayZones).toEqual(expected.dayZones);
    expect(got.dirty).toEqual([]);
    expect(got.counters).toEqual(expected.counters);
    expect(got.statistics.groups).toHaveLength(4);
    expect(got.statistics).toEqual(expected.statistics);
    if (DIALECT === 'sqlite') {
      // The batch's marker never outlives its transaction: the next writer's triggers run.
      const { rows } = await sql<{ n: number }>`select count(*) as n from location_batch`.execute(
        batch.test.database.db,
      );
      expect(rows[0]!.n).toBe(0);
    }
  });

  it("keeps the file's first copy of a point, though a batch is stored in the position index's order", async () => {
    const { database, dataDir } = batch.test;
    const user = await createTestUser(database);
    const at = (i: number) => new Date(T0 + i * 60_000).toISOString();
    // Points far apart (west of the copies and east of them), and one point twice with other accuracies.
    const locations = [
      { latitudeE7: 480_000_000, longitudeE7: 118_000_000, accuracy: 7, timestamp: at(0) },
      { latitudeE7: 481_000_000, longitudeE7: 116_000_000, accuracy: 5, timestamp: at(1) },
      { latitudeE7: 479_000_000, longitudeE7: 112_000_000, accuracy: 8, timestamp: at(2) },
      { latitudeE7: 481_000_000, longitudeE7: 116_000_000, accuracy: 50, timestamp: at(1) },
    ];
    const file = join(dataDir, 'copies.json');
    writeFileSync(file, JSON.stringify({ locations }));
    const files = importFiles({ dataDir, storage: { kind: 'local' } });
    const created = await createImport(
      database.db,
      { userId: user.id, path: file, owned: false, filename: 'Records.json' },
      { files, now: Date.now() },
    );
    expect(await runImport({ database, files }, created.id)).toBe('done');
    const { rows } = await sql<{ accuracy: number }>`select accuracy from locations
      where user_id = ${user.id} order by time`.execute(database.db);
    expect(rows.map((row) => row.accuracy)).toEqual([7, 5, 8]);
  });
});
