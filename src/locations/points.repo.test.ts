import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { eachBatch, POSITION } from './points.repo.ts';
import { LOCATION_FIELDS, selectLocationPage } from './locations.repo.ts';

let t: TestApp;
let userId: string;

beforeAll(async () => {
  t = await buildTestApp();
  userId = (await createTestUser(t.database, { username: 'batches' })).id;
  // Seven points, two of them at the same millisecond (the keyset goes on by id).
  const times = [5000, 1000, 3000, 3000, 2000, 7000, 4000];
  await insertItems(
    t.database,
    'locations',
    userId,
    times.map((time, index) => ({ time, id: `01J0000000000000000000000${index}`, lat: index, lon: -index })),
  );
});
afterAll(() => t.close());

describe('eachBatch', () => {
  it('reads every point once, oldest first, in batches of the size asked, with only the columns asked', async () => {
    const seen: { time: number; id: string; lat: number; lon: number }[][] = [];
    for await (const batch of eachBatch(t.database.db, { userId }, POSITION, 3)) {
      expect(batch.every((row) => Object.keys(row).sort().join() === 'id,lat,lon,time')).toBe(true);
      seen.push(batch.map((row) => ({ ...row, time: Number(row.time) })));
    }
    expect(seen.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(seen.flat().map((row) => [row.time, row.id.at(-1)])).toEqual([
      [1000, '1'],
      [2000, '4'],
      [3000, '2'],
      [3000, '3'],
      [4000, '6'],
      [5000, '0'],
      [7000, '5'],
    ]);
    expect(seen.flat().find((row) => row.time === 4000)).toEqual({
      time: 4000,
      id: '01J00000000000000000000006',
      lat: 6,
      lon: -6,
    });
  });

  it('ends after a last batch that is exactly full, and keeps to the time range', async () => {
    const sizes: number[] = [];
    for await (const batch of eachBatch(t.database.db, { userId, sinceMs: 2000, untilMs: 5000 }, ['scope'], 2)) {
      sizes.push(batch.length);
      expect(batch.every((row) => row.time >= 2000 && row.time < 5000 && row.scope === 'public')).toBe(true);
    }
    expect(sizes).toEqual([2, 2]);
  });
});

describe('selectLocationPage', () => {
  it("reads a page's points with only the columns their objects are made of, with a box and without", async () => {
    // The points are public (test/items.ts), read as the public collection, whose rule also reads the zone flag.
    const audience = { owner: userId, scope: 'public' as const };
    const fields = [...LOCATION_FIELDS].sort().join();
    for (const box of [undefined, { minLon: -10, minLat: 0, maxLon: 0, maxLat: 10 }]) {
      const { rows, more } = await selectLocationPage(t.database.db, audience, { count: 3, order: 'desc' }, box);
      expect(rows.map((row) => [Number(row.time), row.id.at(-1)])).toEqual([
        [7000, '5'],
        [5000, '0'],
        [4000, '6'],
      ]);
      expect(more).toBe(true);
      expect(rows.map((row) => Object.keys(row).sort().join())).toEqual([fields, fields, fields]);
    }
  });
});
