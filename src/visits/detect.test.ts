// Visit and trip detection against a simulated week with known truth (bench/visits-sim.ts)
// and against small histories built by hand. Distances along a meridian are R * angle, so the
// expected metres need no haversine of ours.
import { describe, expect, it } from 'vitest';
import { simulate } from '../../bench/visits-sim.ts';
import { random } from '../../bench/visits-plan.ts';
import { distanceM } from '../lib/distance.ts';
import {
  createDetector,
  detect,
  GAP_MS,
  redetectionWindow,
  stitch,
  type Detection,
  type DetectorPoint,
} from './detect.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const R = 6_371_008.8;
/** Degrees of latitude for `metres` north along a meridian. */
const north = (metres: number) => (metres / R) * (180 / Math.PI);
const T0 = Date.UTC(2025, 2, 3, 20); // 20:00 UTC

const at = (time: number, lat: number, lon = 11, accuracy: number | null = 20): DetectorPoint => ({
  time,
  lat,
  lon,
  accuracy,
  speed: null,
});

/** Points every `everyMs` from `from` to `to` at one place, wobbling by a few metres. */
function stay(from: number, to: number, lat: number, everyMs = MIN, accuracy = 20): DetectorPoint[] {
  const points = [];
  for (let t = from, i = 0; t <= to; t += everyMs, i += 1)
    points.push(at(t, lat + north(((i % 5) - 2) * 4), 11, accuracy));
  return points;
}

/** A walk north from `lat`, a point every 36 s, 50 m apart (1.39 m/s). */
function walk(from: number, lat: number, metres: number): DetectorPoint[] {
  const points = [];
  for (let m = 0; m <= metres; m += 50) points.push(at(from + (m / 50) * 36_000, lat + north(m), 11, 10));
  return points;
}

describe('a simulated week', () => {
  const sim = simulate({ seed: 1, days: 7 });
  const found = detect(sim.points);

  it('gives exactly the expected visits and trips, each trip between consecutive visits', () => {
    expect(sim.points.length).toBe(2236);
    expect(found.visits.length).toBe(34);
    expect(found.trips.length).toBe(33);
    expect(found.trips.map((t) => [t.fromIndex, t.toIndex])).toEqual(found.trips.map((_, i) => [i, i + 1]));
    // Of the 31 true stays of 10 minutes or more (but the first and last, cut by the edges),
    // every one is found within 3 minutes at both ends and 100 m.
    const long = sim.stays.slice(1, -1).filter((s) => s.end - s.start >= 10 * MIN);
    const matched = long.filter((s) =>
      found.visits.some(
        (v) => Math.abs(v.start - s.start) <= 3 * MIN && Math.abs(v.end - s.end) <= 3 * MIN && distanceM(v, s) <= 100,
      ),
    );
    expect([long.length, matched.length]).toEqual([31, 31]);
  });

  it('comes out the same pushed point by point in batches, as it streams', () => {
    const detector = createDetector();
    const streamed: Detection = { visits: [], trips: [] };
    for (const point of sim.points) {
      const done = detector.push(point);
      if (done)
        [streamed.visits, streamed.trips] = [
          [...streamed.visits, ...done.visits],
          [...streamed.trips, ...done.trips],
        ];
    }
    const done = detector.flush();
    expect({ visits: [...streamed.visits, ...done.visits], trips: [...streamed.trips, ...done.trips] }).toEqual(found);
  });
});

describe('points out of order and several trackers', () => {
  it('gives the same result for points shuffled then sorted by the caller, equal times in any order', () => {
    const two = simulate({ seed: 1, days: 7, trackers: 2 });
    const shuffled = [...two.points];
    const rand = random(99);
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = Math.floor(rand() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const sorted = shuffled.sort((a, b) => a.time - b.time); // stable: equal times stay shuffled
    const sameTime = sorted.filter((p, i) => i > 0 && p.time === sorted[i - 1]!.time).length;
    expect(sameTime).toBe(80);
    expect(detect(sorted)).toEqual(detect(two.points));
  });

  it('finds the same visits with a second tracker interleaved as with the phone alone', () => {
    const one = detect(simulate({ seed: 1, days: 7 }).points);
    const two = detect(simulate({ seed: 1, days: 7, trackers: 2 }).points);
    expect([two.visits.length, two.trips.length]).toEqual([34, 33]);
    const apart = one.visits.map((v, i) => ({
      minutes: Math.max(Math.abs(v.start - two.visits[i]!.start), Math.abs(v.end - two.visits[i]!.end)) / MIN,
      metres: distanceM(v, two.visits[i]!),
    }));
    expect(apart.filter((a) => a.minutes > 3 || a.metres > 100).length).toBe(1);
    expect(Math.max(...apart.map((a) => a.minutes))).toBeLessThan(4);
  });

  it('refuses a point earlier than the one before', () => {
    const detector = createDetector();
    detector.push(at(T0, 48));
    detector.push(at(T0 + MIN, 48));
    expect(() => detector.push(at(T0, 48))).toThrow(RangeError);
  });
});

describe('gaps', () => {
  it('does not count the jump across a long gap: a walk after it is its own trip', () => {
    const a = stay(T0, T0 + 30 * MIN, 48);
    const later = T0 + 3 * 24 * HOUR;
    const b = 48 + north(10_000); // 10 km north of A
    const way = walk(later, b, 1000);
    const c = stay(way.at(-1)!.time + MIN, way.at(-1)!.time + 31 * MIN, b + north(1000));
    const { visits, trips } = detect([...a, ...way, ...c]);
    expect(visits.map((v) => [v.start, v.end])).toEqual([
      [T0, T0 + 30 * MIN],
      [way.at(-1)!.time, c.at(-1)!.time],
    ]);
    expect(trips).toEqual([
      { start: later, end: way.at(-1)!.time, distanceM: 1000, mode: 'walking', fromIndex: null, toIndex: 1 },
    ]);
  });

  it('makes one stay of a night at home with the phone asleep, waking at home', () => {
    const evening = stay(T0, T0 + 15 * MIN, 48, MIN, 30);
    const morning = stay(T0 + 11 * HOUR, T0 + 11 * HOUR + 5 * MIN, 48, MIN, 30);
    const { visits, trips } = detect([...evening, ...morning]);
    expect(visits.map((v) => [v.start, v.end, v.pointCount])).toEqual([[T0, T0 + 11 * HOUR + 5 * MIN, 22]]);
    expect(trips).toEqual([]);
  });

  it('makes one stay of a night at home with the phone asleep, waking on the way out', () => {
    const evening = stay(T0, T0 + 14 * MIN, 48, MIN, 30); // whole wobbles: centred on 48°
    // At 07:35 the first point is 300 m north, walking on at 50 m every 36 s.
    const woke = T0 + 11 * HOUR + 35 * MIN;
    const way = walk(woke, 48 + north(300), 500);
    const { visits, trips } = detect([...evening, ...way]);
    // Walking back those 300 m at the speed the points after waking show: 216 s.
    const left = woke - 216_000;
    expect(visits.map((v) => [v.start, v.end])).toEqual([[T0, left]]);
    expect(visits[0]!.confidence).toBeLessThan(0.8);
    expect(trips).toEqual([
      { start: left, end: way.at(-1)!.time, distanceM: 800, mode: 'walking', fromIndex: 0, toIndex: null },
    ]);
  });

  it('leaves a gap between two places to neither visit nor trip', () => {
    const a = stay(T0, T0 + 30 * MIN, 48);
    const b = stay(T0 + 30 * MIN + GAP_MS + MIN, T0 + 90 * MIN + GAP_MS, 48 + north(20_000));
    const { visits, trips } = detect([...a, ...b]);
    expect(visits.map((v) => [v.start, v.end])).toEqual([
      [a[0]!.time, a.at(-1)!.time],
      [b[0]!.time, b.at(-1)!.time],
    ]);
    expect(trips).toEqual([]);
  });
});

describe('outliers', () => {
  it('creates no visit and splits no stay', () => {
    const points = stay(T0, T0 + HOUR, 48, 30_000);
    const east = (i: number, metres: number, accuracy: number) => {
      points[i] = at(
        points[i]!.time,
        points[i]!.lat,
        11 + metres / (111_195 * Math.cos((48 * Math.PI) / 180)),
        accuracy,
      );
    };
    east(20, 500, 60); // a single spike
    for (const i of [60, 61, 62]) points[i] = at(points[i]!.time, 48 + north(400), 11, 50); // a mislocated network, thrice
    east(90, 2000, 500); // a coarse fix, dropped
    const { visits, trips } = detect(points);
    expect(visits.map((v) => [v.start, v.end, v.pointCount])).toEqual([[T0, T0 + HOUR, 116]]); // 121 less 5 outliers
    expect(distanceM(visits[0]!, { lat: 48, lon: 11 })).toBeLessThan(10);
    expect(trips).toEqual([]);
  });

  it('adds nothing to a walk', () => {
    const way = walk(T0, 48, 2000);
    way[20] = at(way[20]!.time, way[20]!.lat, 11.008, 40); // 600 m east, and back
    const { visits, trips } = detect(way);
    expect(visits).toEqual([]);
    expect(trips).toEqual([
      { start: T0, end: way.at(-1)!.time, distanceM: 2000, mode: 'walking', fromIndex: null, toIndex: null },
    ]);
  });
});

describe('detecting again around changed points', () => {
  /** The stored results with a window's run stitched in. */
  function stitched(stored: Detection, window: ReturnType<typeof redetectionWindow>, run: Detection): Detection {
    const first = window.first ? stored.visits.findIndex((v) => v.start === window.first!.start) : -1;
    const last = window.last ? stored.visits.findIndex((v) => v.start === window.last!.start) : stored.visits.length;
    const part = stitch(window, run);
    const head = stored.visits.slice(0, Math.max(first, 0));
    const middle = [...(part.first ? [part.first] : []), ...part.visits, ...(part.last ? [part.last] : [])];
    const tail = stored.visits.slice(last + 1);
    const shift = (index: number | null, by: number) => (index == null ? null : index + by);
    const moved = head.length + middle.length - (last + 1);
    return {
      visits: [...head, ...middle, ...tail],
      trips: [
        ...stored.trips.filter((t) => window.first && t.start < window.first.start),
        ...part.trips.map((t) => ({
          ...t,
          fromIndex: shift(t.fromIndex, head.length),
          toIndex: shift(t.toIndex, head.length),
        })),
        ...stored.trips
          .filter((t) => window.last && t.start >= window.last.end)
          .map((t) => ({ ...t, fromIndex: shift(t.fromIndex, moved), toIndex: shift(t.toIndex, moved) })),
      ],
    };
  }

  it('gives what detecting everything again gives, for an hour of points deleted or added anywhere', () => {
    const sim = simulate({ seed: 7, days: 7 });
    let windows = 0;
    for (let from = sim.points[0]!.time + 2 * HOUR; from < sim.points.at(-1)!.time - 2 * HOUR; from += 5 * HOUR) {
      const to = from + HOUR;
      const without = sim.points.filter((p) => p.time < from || p.time > to);
      for (const [before, after] of [
        [sim.points, without],
        [without, sim.points],
      ] as const) {
        const stored = detect(before);
        const window = redetectionWindow(
          stored.visits.filter((v) => v.start <= from),
          stored.visits.filter((v) => v.end >= to),
        );
        const run = detect(after.filter((p) => p.time >= window.readFrom && p.time <= window.readTo));
        expect(stitched(stored, window, run)).toEqual(detect(after));
        windows += 1;
      }
    }
    expect(windows).toBe(64);
  });

  it('gives what detecting everything again gives after each batch of 100 points from a live tracker', () => {
    const sim = simulate({ seed: 3, days: 7 });
    let stored: Detection = { visits: [], trips: [] };
    let batches = 0;
    for (let n = 100; n <= sim.points.length; n += 100) {
      const points = sim.points.slice(0, n);
      const [from, to] = [points[n - 100]!.time, points[n - 1]!.time];
      const window = redetectionWindow(
        stored.visits.filter((v) => v.start <= from),
        stored.visits.filter((v) => v.end >= to),
      );
      expect(window.last).toBe(null);
      stored = stitched(stored, window, detect(points.filter((p) => p.time >= window.readFrom)));
      expect(stored).toEqual(detect(points));
      batches += 1;
    }
    expect(batches).toBe(20);
  });
});
