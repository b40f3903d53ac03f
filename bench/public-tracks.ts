// How well an attacker places the start of a public track from what strangers get, in metres
// from the truth (docs/privacy.md "What a public point says besides its place"). Random tracks
// of 361 points 5 s apart, speed and heading wandering as in src/privacy/public-points.test.ts,
// rounded with the grid the server uses. Estimators (test/dead-reckoning.ts):
//   centre     the start's cell centre: what the first served point says
//   reckoning  dead reckoning over exact speed and heading, anchored on the cells (the answers
//              before speed and heading were left out)
//   velocity   times and served places alone: a constant velocity fitted to the places over
//              time, anchored on the cells
//   thinned T  `velocity` on a track thinned to the first point of every T seconds
// For each: the median error, and the share of tracks where it beats the centre by over 1 m.
//
//   node scripts/node24.mjs bench/public-tracks.ts           (TRACKS=2000 by default)
import { constantVelocityStart, deadReckonStart, integrateTrack, type TrackPoint } from '../test/dead-reckoning.ts';
import { roundPoint } from '../src/privacy/precision.ts';
import { distanceM } from '../src/privacy/zones.ts';

const TRACKS = Number(process.env.TRACKS ?? 2000);
const POINTS = 361;
const DT_S = 5;

/** A small seeded generator, so that two runs measure the same tracks. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

type Kind = 'wandering' | 'straight';

function track(next: () => number, kind: Kind): TrackPoint[] {
  let speed = 0.5 + next() * 29.5;
  let heading = next() * 360;
  const steps = Array.from({ length: POINTS }, () => {
    if (kind === 'wandering') {
      speed = Math.min(40, Math.max(0, speed + (next() * 2 - 1) * 1.5));
      heading = (heading + (next() * 2 - 1) * 25 + 360) % 360;
    }
    return { dt: DT_S, speed, heading };
  });
  return integrateTrack({ lat: -60 + next() * 120, lon: -170 + next() * 340, time: 1_700_000_000 }, steps);
}

function thinned(points: TrackPoint[], everyS: number): TrackPoint[] {
  const seen = new Set<number>();
  return points.filter((p) => {
    const slot = Math.floor(p.time / everyS);
    if (seen.has(slot)) return false;
    seen.add(slot);
    return true;
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const kind of ['wandering', 'straight'] as const) {
  for (const precisionM of [100, 1000, 5000]) {
    const next = random(precisionM + (kind === 'straight' ? 1 : 0));
    const errors: Record<string, number[]> = {};
    const beats: Record<string, number> = {};
    for (let i = 0; i < TRACKS; i += 1) {
      const truth = track(next, kind);
      const start = truth[0]!;
      const served = truth.map((p) => ({ ...p, ...roundPoint(p.lat, p.lon, precisionM) }));
      const stripped = served.map((p) => ({ ...p, speed: null, heading: null }));
      const centre = distanceM(served[0]!, start);
      const estimates: Record<string, { lat: number; lon: number }> = {
        centre: served[0]!,
        reckoning: deadReckonStart(served, precisionM),
        velocity: constantVelocityStart(stripped, precisionM),
        'thinned 60 s': constantVelocityStart(thinned(stripped, 60), precisionM),
        'thinned 300 s': constantVelocityStart(thinned(stripped, 300), precisionM),
      };
      for (const [name, estimate] of Object.entries(estimates)) {
        const error = distanceM(estimate, start);
        (errors[name] ??= []).push(error);
        beats[name] = (beats[name] ?? 0) + (error < centre - 1 ? 1 : 0);
      }
    }
    console.log(`${kind} tracks, precision ${precisionM} m, ${TRACKS} tracks of ${POINTS} points ${DT_S} s apart`);
    for (const name of Object.keys(errors)) {
      const share = ((100 * beats[name]!) / TRACKS).toFixed(1);
      console.log(
        `  ${name.padEnd(14)} median ${median(errors[name]!).toFixed(1).padStart(7)} m  beats centre ${share}%`,
      );
    }
  }
}
