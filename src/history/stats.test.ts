// Statistics and day tracks against values worked out by hand: distances along a meridian or
// the equator are R * angle, so the expected numbers need no haversine of ours.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems, type ItemSeed } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';
import { refreshHistory } from './refresh.ts';
import { refreshBuckets } from './stats.repo.ts';
import type { StatsGroup } from './history.schemas.ts';

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let other: Awaited<ReturnType<typeof createTestUser>>;
let reader: string;

const R = 6_371_008.8;
/** Metres of `degrees` along a great circle. */
const arc = (degrees: number) => (R * degrees * Math.PI) / 180;
const at = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database, { username: 'counter' });
  other = await createTestUser(t.database, { username: 'other' });
  reader = await tokenFor(t, user, ['get_private_scope']);
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.database.db.deleteFrom('locations').execute();
  await updateSettings(t.database.db, user.id, { timezone: 'Europe/Berlin' });
});

const get = (url: string, token: string | undefined = reader) =>
  t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
const add = (seeds: ItemSeed[], userId = user.id) => insertItems(t.database, 'locations', userId, seeds);
const stats = async (query: string) => {
  const response = await get(`/locations/stats?${query}`);
  expect(response.statusCode).toBe(200);
  return response.json<{ timezone: string; groups: StatsGroup[] }>();
};
const round = (metres: number) => Math.round(metres * 10) / 10;

describe('GET /locations/stats', () => {
  it('two refreshes of the same quarter hours at once (a request and the worker) both succeed and agree', async () => {
    await add([
      { time: at('2024-03-01T10:00:00Z'), lat: 0, lon: 0, scope: 'private' },
      { time: at('2024-03-01T10:20:00Z'), lat: 0.01, lon: 0, scope: 'private' },
    ]);
    await Promise.all([1, 2, 3].map(() => refreshBuckets(t.database.db, user.id)));
    const body = await stats('group_by=day');
    expect(body.groups).toMatchObject([{ period: '2024-03-01', points: 2, distance_m: round(arc(0.01)) }]);
  });

  it('shares one refresh among the reads that ask for it at once', async () => {
    await add([
      { time: at('2024-03-02T10:00:00Z'), lat: 0, lon: 0, scope: 'private' },
      { time: at('2024-03-02T10:20:00Z'), lat: 0.01, lon: 0, scope: 'private' },
    ]);
    // Each refresh of a run of quarter hours starts by deleting their marks: count those.
    let refreshedRuns = 0;
    const db = t.database.db.withPlugin({
      transformQuery: ({ node }) => {
        if (node.kind === 'DeleteQueryNode' && JSON.stringify(node).includes('"location_dirty"')) refreshedRuns += 1;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    await Promise.all([1, 2, 3].map(() => refreshHistory(db, user.id, Date.now())));
    // Three reads side by side would each have read the marks and redone the run.
    expect(refreshedRuns).toBe(1);
    const body = await stats('group_by=day');
    expect(body.groups).toMatchObject([{ period: '2024-03-02', points: 2, distance_m: round(arc(0.01)) }]);
  });

  it("splits days at midnight of the person's time zone, not UTC's", async () => {
    // Berlin is UTC+1 in January: 22:30 UTC is 23:30 on the 15th, 23:30 UTC is 00:30 on the 16th.
    await add([
      { time: at('2024-01-15T22:00:00Z'), lat: 0, lon: 0, scope: 'private' },
      { time: at('2024-01-15T22:30:00Z'), lat: 0.01, lon: 0, scope: 'public' },
      { time: at('2024-01-15T23:30:00Z'), lat: 0.02, lon: 0, scope: 'private' },
    ]);
    const body = await stats('group_by=day');
    expect(body).toEqual({
      group_by: 'day',
      timezone: 'Europe/Berlin',
      groups: [
        {
          period: '2024-01-15',
          start: at('2024-01-14T23:00:00Z') / 1000,
          end: at('2024-01-15T23:00:00Z') / 1000,
          points: 2,
          // Distance is the trips' (docs/history.md "Statistics"), in whole metres.
          distance_m: Math.round(arc(0.01)),
          days_with_data: 1,
          bbox: [0, 0, 0, 0.01],
        },
        {
          period: '2024-01-16',
          start: at('2024-01-15T23:00:00Z') / 1000,
          end: at('2024-01-16T23:00:00Z') / 1000,
          points: 1,
          // An hour without a point is a gap in the data, not a trip: nothing is travelled across it.
          distance_m: 0,
          days_with_data: 1,
          bbox: [0, 0.02, 0, 0.02],
        },
      ],
    });
    // The same points in UTC are one day; nothing is recomputed for the change.
    await updateSettings(t.database.db, user.id, { timezone: 'UTC' });
    const utc = await stats('group_by=day');
    expect(utc.groups).toHaveLength(1);
    expect(utc.groups[0]).toMatchObject({ period: '2024-01-15', points: 3, distance_m: Math.round(arc(0.01)) });
  });

  it('counts half-hour zones (India, UTC+5:30) by their own midnight', async () => {
    await updateSettings(t.database.db, user.id, { timezone: 'Asia/Kolkata' });
    // 18:15 UTC is 23:45 on the 1st in Kolkata; 18:45 UTC is 00:15 on the 2nd.
    await add([
      { time: at('2024-03-01T18:15:00Z'), lat: 10, lon: 77 },
      { time: at('2024-03-01T18:45:00Z'), lat: 10, lon: 77 },
    ]);
    const body = await stats('group_by=day');
    expect(body.groups.map((g) => [g.period, g.points])).toEqual([
      ['2024-03-01', 1],
      ['2024-03-02', 1],
    ]);
  });

  it('crosses the antimeridian the short way, with a box whose west is east of its east', async () => {
    await add([
      { time: at('2024-05-01T10:00:00Z'), lat: -17, lon: 179.995 },
      { time: at('2024-05-01T10:01:00Z'), lat: -17, lon: -179.995 },
      { time: at('2024-05-01T10:02:00Z'), lat: -16.99, lon: -179.995 },
    ]);
    const [group] = (await stats('group_by=month')).groups;
    // 0.01 degrees of longitude at latitude -17 (a small circle, but haversine over such a short
    // step agrees with the cosine rule to well under a millimetre), then 0.01 degrees north.
    const east = arc(0.01) * Math.cos((17 * Math.PI) / 180);
    expect(group).toEqual({
      period: '2024-05',
      start: at('2024-04-30T22:00:00Z') / 1000,
      end: at('2024-05-31T22:00:00Z') / 1000,
      points: 3,
      distance_m: Math.round(east + arc(0.01)),
      days_with_data: 1,
      bbox: [179.995, -17, -179.995, -16.99],
    });
  });

  it('drops a GPS spike (far from both neighbours, which are close) but counts its point', async () => {
    await add([
      { time: at('2024-06-01T08:00:00Z'), lat: 0, lon: 0 },
      { time: at('2024-06-01T08:01:00Z'), lat: 0, lon: 0.01 },
      // 5 degrees away and back within a minute each: a spike, not travel.
      { time: at('2024-06-01T08:02:00Z'), lat: 5, lon: 0.01 },
      { time: at('2024-06-01T08:03:00Z'), lat: 0, lon: 0.02 },
      { time: at('2024-06-01T08:04:00Z'), lat: 0, lon: 0.03 },
    ]);
    const [group] = (await stats('group_by=year')).groups;
    // The way from 0.01 to 0.02 around the spike is travelled too: three steps of 0.01 degrees.
    expect(group).toMatchObject({
      period: '2024',
      points: 5,
      distance_m: Math.round(3 * arc(0.01)),
      days_with_data: 1,
    });
  });

  it('stays right when points arrive out of order, and after deletions', async () => {
    // Each day a one-minute walk of 0.001 degrees (111 m); days apart, nothing between them, and
    // 11 km apart: farther than a phone asleep where a walk ended could explain by leaving just
    // before its next point (docs/history.md "Visits and trips"), so the silences are gaps.
    const walkOn = (day: string, lon: number) => [
      { time: at(`${day}T08:00:00Z`), lat: 0, lon },
      { time: at(`${day}T08:01:00Z`), lat: 0, lon: lon + 0.001 },
    ];
    const step = Math.round(arc(0.001));
    await add([...walkOn('2024-07-01', 0), ...walkOn('2024-07-03', 0.2)]);
    // Two days apart: a gap in the data, not travel; each day counts its own walk.
    expect((await stats('group_by=day')).groups.map((g) => [g.period, g.points, g.distance_m])).toEqual([
      ['2024-07-01', 2, step],
      ['2024-07-03', 2, step],
    ]);
    // A day in between arrives later (an import): its walk counts, and nothing across the gaps.
    await add(walkOn('2024-07-02', 0.1));
    const after = await stats('group_by=day');
    expect(after.groups.map((g) => [g.period, g.points, g.distance_m])).toEqual([
      ['2024-07-01', 2, step],
      ['2024-07-02', 2, step],
      ['2024-07-03', 2, step],
    ]);
    expect((await stats('group_by=month')).groups).toMatchObject([
      { period: '2024-07', points: 6, distance_m: 3 * step, days_with_data: 3 },
    ]);
    await t.database.db
      .deleteFrom('locations')
      .where('time', '>=', at('2024-07-02T08:00:00Z'))
      .where('time', '<=', at('2024-07-02T08:01:00Z'))
      .execute();
    expect((await stats('group_by=day')).groups.map((g) => [g.period, g.points, g.distance_m])).toEqual([
      ['2024-07-01', 2, step],
      ['2024-07-03', 2, step],
    ]);
  });

  it('counts a day before 1970 by its own midnight', async () => {
    // Berlin was UTC+1: 22:30 UTC on 1969-12-31 is 23:30 there, 23:30 UTC is 00:30 on 1970-01-01.
    await add([
      { time: at('1969-12-31T22:30:00Z'), lat: 0, lon: 0 },
      { time: at('1969-12-31T23:30:00Z'), lat: 0.01, lon: 0 },
    ]);
    expect((await stats('group_by=day')).groups.map((g) => [g.period, g.start, g.points])).toEqual([
      ['1969-12-31', at('1969-12-30T23:00:00Z') / 1000, 1],
      ['1970-01-01', at('1969-12-31T23:00:00Z') / 1000, 1],
    ]);
  });

  it('cuts the days a range begins or ends inside by its quarter hours', async () => {
    // Berlin in March is UTC+1: each day a point at 09:00 local time (08:00 UTC), and a walk of
    // 0.01 degrees from 16:00 to 16:10 UTC.
    const days = ['2024-03-04', '2024-03-05', '2024-03-06'];
    await add(
      days.flatMap((day, i) => [
        { time: at(`${day}T08:00:00Z`), lat: 0, lon: i * 0.02 },
        { time: at(`${day}T16:00:00Z`), lat: 0, lon: i * 0.02 },
        { time: at(`${day}T16:10:00Z`), lat: 0, lon: i * 0.02 + 0.01 },
      ]),
    );
    const walked = Math.round(arc(0.01));
    const noonOf = (day: string) => at(`${day}T11:00:00Z`) / 1000;
    const cut = async (since: string, until: string) =>
      (await stats(`group_by=day&since_time=${noonOf(since)}&until_time=${noonOf(until)}`)).groups.map((g) => [
        g.period,
        g.points,
        g.distance_m,
      ]);
    // From noon on the 4th to noon on the 6th: the 4th's afternoon, all of the 5th, the 6th's morning.
    expect(await cut('2024-03-04', '2024-03-06')).toEqual([
      ['2024-03-04', 2, walked],
      ['2024-03-05', 3, walked],
      ['2024-03-06', 1, 0],
    ]);
    // One day cut at both ends holds nothing between its two noons... and its afternoon alone.
    expect(await cut('2024-03-05', '2024-03-05')).toEqual([]);
    const evening = await stats(
      `group_by=month&since_time=${noonOf('2024-03-05')}&until_time=${at('2024-03-05T20:00:00Z') / 1000}`,
    );
    expect(evening.groups).toMatchObject([{ period: '2024-03', points: 2, distance_m: walked, days_with_data: 1 }]);
  });

  it('keeps its sums per day equal to sums made afresh, whatever is written between reads', async () => {
    let state = 7;
    const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const fresh = async (query: string) => {
      // Without the zone the days were summed in, every day is summed again from the quarter hours.
      await t.database.db.deleteFrom('location_day_zones').execute();
      return stats(query);
    };
    const start = at('2024-03-20T00:00:00Z'); // across the change to summer time on the 31st
    for (let step = 0; step < 10; step += 1) {
      await add(
        // Sparse: a point written later is often days from the next, whose first segment it changes.
        Array.from({ length: 8 }, () => ({
          time: start + Math.floor(random() * 60 * 96) * 900_000 + Math.floor(random() * 900) * 1000,
          lat: random() * 0.5,
          lon: random() * 0.5,
        })),
      );
      if (step % 2 === 1) {
        const from = start + Math.floor(random() * 60) * 86_400_000;
        await t.database.db
          .deleteFrom('locations')
          .where('user_id', '=', user.id)
          .where('time', '>=', from)
          .where('time', '<', from + 86_400_000)
          .execute();
      }
      const since = Math.floor((start + random() * 30 * 86_400_000) / 1000);
      for (const query of ['group_by=day', 'group_by=month', `group_by=day&since_time=${since}`]) {
        const kept = await stats(query);
        expect(kept.groups.length).toBeGreaterThan(0);
        expect(kept).toEqual(await fresh(query));
      }
    }
  });

  it('sums months and years as their days add up, cut days at either end of the range included', async () => {
    let state = 11;
    const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const start = at('2024-02-20T00:00:00Z');
    await add(
      Array.from({ length: 300 }, () => ({
        time: start + Math.floor(random() * 80 * 86_400) * 1000,
        lat: random() * 2 - 1,
        lon: random() * 2 - 1,
      })),
    );
    // Each day's distance comes rounded to 0.1 m: a period's is within 0.05 m a day of their sum.
    type Sums = {
      period: string;
      points: number;
      days_with_data: number;
      bbox: number[];
      distance_m: number;
      days: number;
    };
    const byHand = (days: StatsGroup[], key: (period: string) => string): Sums[] => {
      const sums = new Map<string, Sums>();
      for (const day of days) {
        const sum = sums.get(key(day.period));
        if (!sum) {
          const { points, days_with_data, bbox, distance_m } = day;
          sums.set(key(day.period), { period: key(day.period), points, days_with_data, bbox, distance_m, days: 1 });
          continue;
        }
        sum.points += day.points;
        sum.distance_m += day.distance_m;
        sum.days_with_data += day.days_with_data;
        sum.days += 1;
        sum.bbox = [
          Math.min(sum.bbox[0]!, day.bbox[0]),
          Math.min(sum.bbox[1]!, day.bbox[1]),
          Math.max(sum.bbox[2]!, day.bbox[2]),
          Math.max(sum.bbox[3]!, day.bbox[3]),
        ];
      }
      return [...sums.values()];
    };
    const check = (groups: StatsGroup[], expected: Sums[]) => {
      const without = ({ period, points, days_with_data, bbox }: Omit<Sums, 'days' | 'distance_m'>) => ({
        period,
        points,
        days_with_data,
        bbox,
      });
      expect(groups.map(without)).toEqual(expected.map(without));
      groups.forEach((group, i) => {
        expect(Math.abs(group.distance_m - expected[i]!.distance_m)).toBeLessThanOrEqual(
          0.05 * expected[i]!.days + 0.05,
        );
      });
    };
    for (let round = 0; round < 6; round += 1) {
      // Ranges that begin and end inside days (and inside months), or none.
      const since = round === 0 ? undefined : Math.floor((start + random() * 40 * 86_400_000) / 1000);
      const until = round === 0 ? undefined : since! + Math.floor(random() * 40 * 86_400);
      const range = since === undefined ? '' : `&since_time=${since}&until_time=${until}`;
      const days = (await stats(`group_by=day${range}`)).groups;
      expect(days.length).toBeGreaterThan(1);
      check(
        (await stats(`group_by=month${range}`)).groups,
        byHand(days, (day) => day.slice(0, 7)),
      );
      check(
        (await stats(`group_by=year${range}`)).groups,
        byHand(days, (day) => day.slice(0, 4)),
      );
    }
  });

  it('keeps to since_time and until_time, and to the person', async () => {
    await add([
      { time: at('2024-01-10T12:00:00Z'), lat: 1, lon: 1 },
      { time: at('2024-02-10T12:00:00Z'), lat: 1, lon: 1 },
      { time: at('2024-03-10T12:00:00Z'), lat: 1, lon: 1 },
    ]);
    await add([{ time: at('2024-02-11T12:00:00Z'), lat: 50, lon: 50 }], other.id);
    const since = at('2024-02-01T00:00:00Z') / 1000;
    const until = at('2024-03-01T00:00:00Z') / 1000;
    const body = await stats(`group_by=month&since_time=${since}&until_time=${until}`);
    expect(body.groups).toMatchObject([{ period: '2024-02', points: 1, bbox: [1, 1, 1, 1] }]);
    expect((await stats('group_by=year')).groups).toMatchObject([{ period: '2024', points: 3, days_with_data: 3 }]);
  });

  it('is empty without points, 400 for bad parameters, 401 without get_private_scope', async () => {
    expect((await stats('group_by=month')).groups).toEqual([]);
    expect((await get('/locations/stats?group_by=week')).statusCode).toBe(400);
    expect((await get('/locations/stats?since_time=')).statusCode).toBe(400);
    expect((await get('/locations/stats?since_time=1e400')).statusCode).toBe(400);
    expect((await get('/locations/stats?what=1')).statusCode).toBe(400);
    expect((await get('/locations/stats', '')).statusCode).toBe(401);
    expect((await get('/locations/stats', await tokenFor(t, user, []))).statusCode).toBe(401);
  });
});

describe('GET /locations/tracks/<date>', () => {
  it("is the day's points in the person's time zone as a line, with distance, duration and time moving", async () => {
    await add([
      { time: at('2024-01-15T22:50:00Z'), lat: 0, lon: 0 }, // 23:50 on the 15th in Berlin: not in the 16th
      { time: at('2024-01-15T23:10:00Z'), lat: 0, lon: 0 }, // 00:10 on the 16th
      { time: at('2024-01-15T23:11:00Z'), lat: 0.01, lon: 0 }, // 1112 m in 60 s: moving
      { time: at('2024-01-15T23:12:00Z'), lat: 0.01, lon: 0.0000001 }, // 1 cm in 60 s: standing
      { time: at('2024-01-15T23:13:00Z'), lat: 3, lon: 0 }, // a jump
      { time: at('2024-01-16T22:30:00Z'), lat: 0.02, lon: 0 }, // 23:30 on the 16th: 331 km in 23 h is travel
      { time: at('2024-01-16T23:30:00Z'), lat: 0.03, lon: 0 }, // the 17th
    ]);
    const response = await get('/locations/tracks/2024-01-16');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/geo+json; charset=utf-8');
    const track = response.json<{ geometry: { coordinates: number[][] }; properties: Record<string, number> }>();
    expect(track.geometry.coordinates).toEqual([
      [0, 0],
      [0, 0.01],
      [0.0000001, 0.01],
      [0, 3],
      [0, 0.02],
    ]);
    expect(track.properties).toEqual({
      date: '2024-01-16',
      timezone: 'Europe/Berlin',
      start: at('2024-01-15T23:00:00Z') / 1000,
      end: at('2024-01-16T23:00:00Z') / 1000,
      points: 5,
      // The trip's (docs/history.md "Day tracks"): 0 -> 0.01 (1112 m), 1 cm standing (noise, not
      // travel), the jump left out; then 23 hours without a point, a gap and no trip.
      distance_m: Math.round(arc(0.01)),
      duration_s: 23 * 3600 + 20 * 60,
      // The trip runs from 00:10 to its last point before the gap, 00:13.
      moving_s: 180,
    });
  });

  it('is simplified for a zoom, every point without one', async () => {
    // A straight line of 101 points with a 1 m wiggle at one point.
    await add(
      Array.from({ length: 101 }, (_, i) => ({
        time: at('2024-02-01T10:00:00Z') + i * 10_000,
        lat: i * 0.0001 + (i === 50 ? 0.00001 : 0),
        lon: i * 0.0001,
      })),
    );
    const all = (await get('/locations/tracks/2024-02-01')).json<{ geometry: { coordinates: unknown[] } }>();
    expect(all.geometry.coordinates).toHaveLength(101);
    const far = (await get('/locations/tracks/2024-02-01?zoom=10')).json<{ geometry: { coordinates: unknown[] } }>();
    expect(far.geometry.coordinates).toEqual([
      [0, 0],
      [0.01, 0.01],
    ]);
    // At zoom 22 a pixel is 2 cm: the 1 m wiggle stays.
    const near = (await get('/locations/tracks/2024-02-01?zoom=22')).json<{ geometry: { coordinates: unknown[] } }>();
    expect(near.geometry.coordinates.length).toBeGreaterThan(2);
  });

  it('has no line for a day without two points; 400 for a date that is not one; 401 without the permission', async () => {
    const empty = await get('/locations/tracks/2024-02-02');
    expect(empty.json()).toMatchObject({ type: 'Feature', geometry: null, properties: { points: 0, distance_m: 0 } });
    for (const date of ['2024-02-30', '2024-2-01', 'yesterday']) {
      expect((await get(`/locations/tracks/${date}`)).statusCode).toBe(400);
    }
    expect((await get('/locations/tracks/2024-02-01?zoom=23')).statusCode).toBe(400);
    expect((await get('/locations/tracks/2024-02-01', await tokenFor(t, user, []))).statusCode).toBe(401);
  });
});
