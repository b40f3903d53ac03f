// A person's day as a phone tracker records it, for tests of visits and trips: stays with GPS
// noise, walks between them at a steady pace, every point a few minutes apart. Deterministic
// (a seeded generator), so a test can assert exact counts.

export interface Fix {
  time: number; // ms
  lat: number;
  lon: number;
  accuracy: number;
}

/** Mulberry32: a small seeded generator, plenty for noise. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const M_PER_DEG = 111_320;

export interface Spot {
  lat: number;
  lon: number;
}

/** Metres north and east of a spot. */
export function offset(spot: Spot, north: number, east: number): Spot {
  return {
    lat: spot.lat + north / M_PER_DEG,
    lon: spot.lon + east / (M_PER_DEG * Math.cos((spot.lat * Math.PI) / 180)),
  };
}

/** Points at a spot from `from` to `to` (ms), every `stepMs`, within `noiseM` of it. */
export function stay(spot: Spot, from: number, to: number, random: () => number, stepMs = 120_000, noiseM = 20): Fix[] {
  const fixes: Fix[] = [];
  for (let time = from; time < to; time += stepMs) {
    const here = offset(spot, (random() * 2 - 1) * noiseM, (random() * 2 - 1) * noiseM);
    fixes.push({ time, ...here, accuracy: 10 + Math.round(random() * 20) });
  }
  return fixes;
}

/** Points along a straight line from one spot to another, every `stepMs`, start excluded. */
export function walk(a: Spot, b: Spot, from: number, to: number, stepMs = 30_000): Fix[] {
  const fixes: Fix[] = [];
  for (let time = from + stepMs; time < to; time += stepMs) {
    const share = (time - from) / (to - from);
    fixes.push({ time, lat: a.lat + (b.lat - a.lat) * share, lon: a.lon + (b.lon - a.lon) * share, accuracy: 8 });
  }
  return fixes;
}

/** As POST /locations takes them (seconds), in batches of at most 1000. */
export function batches(fixes: readonly Fix[]): { time: number; lat: number; lon: number; accuracy: number }[][] {
  const points = fixes.map((fix) => ({ time: fix.time / 1000, lat: fix.lat, lon: fix.lon, accuracy: fix.accuracy }));
  const out = [];
  for (let i = 0; i < points.length; i += 1000) out.push(points.slice(i, i + 1000));
  return out;
}

const HOUR_MS = 3_600_000;

/**
 * A working day from `start` (its midnight, ms): home until 08:00, a 30-minute walk to the
 * office, the office until 17:00, the walk back, home until midnight. Stays are sampled every
 * `stepMs` with their own noise (`seed`); walks every `walkStepMs`.
 */
export function commute(
  start: number,
  places: { home: Spot; office: Spot },
  seed: number,
  stepMs = 120_000,
  walkStepMs = 30_000,
): Fix[] {
  const { home, office } = places;
  const random = seeded(seed);
  const at = (hours: number) => start + hours * HOUR_MS;
  return [
    ...stay(home, at(0), at(8), random, stepMs),
    ...walk(home, office, at(8), at(8.5), walkStepMs),
    ...stay(office, at(8.5), at(17), random, stepMs),
    ...walk(office, home, at(17), at(17.5), walkStepMs),
    ...stay(home, at(17.5), at(24), random, stepMs),
  ];
}
