// The dead-reckoning attack on public points (docs/privacy.md "What a public point says besides
// its place"): a track's points, each with the place it is served at, and the speed and heading
// when the answer has them. The displacement of every point from the start is integrated from
// speed and heading; each point's served cell then bounds where the start can be (start +
// displacement lies in that cell), and the estimate is the middle of what all the cells allow.
// Without speed and heading the displacements are what the served places say, and the estimate
// falls back to the first point's cell centre.
import { gridLatStep, gridLonStep } from '../src/privacy/precision.ts';

const METRES_PER_DEGREE = 111_320;
const RAD = Math.PI / 180;

export interface TrackPoint {
  time: number;
  lat: number;
  lon: number;
  speed: number | null;
  heading: number | null;
}

/**
 * A random track as a person moves, integrated with the same flat model the attack uses (the
 * attacker's best case): speed (m/s) and heading (degrees) hold from one point to the next.
 */
export function integrateTrack(
  start: { lat: number; lon: number; time: number },
  steps: readonly { dt: number; speed: number; heading: number }[],
): TrackPoint[] {
  const points: TrackPoint[] = [];
  let { lat, lon, time } = start;
  for (const step of steps) {
    points.push({ time, lat, lon, speed: step.speed, heading: step.heading });
    const d = step.speed * step.dt;
    const north = d * Math.cos(step.heading * RAD);
    const east = d * Math.sin(step.heading * RAD);
    const nextLat = lat + north / METRES_PER_DEGREE;
    lon += east / (METRES_PER_DEGREE * Math.cos(lat * RAD));
    lat = nextLat;
    time += step.dt;
  }
  return points;
}

/** Each point's displacement (degrees) from the first, assuming the track starts at `startLat`. */
function displacements(served: readonly TrackPoint[], startLat: number): { dLat: number; dLon: number }[] {
  const first = served[0]!;
  if (served.some((p) => p.speed === null || p.heading === null)) {
    return served.map((p) => ({ dLat: p.lat - first.lat, dLon: p.lon - first.lon }));
  }
  const out: { dLat: number; dLon: number }[] = [];
  let dLat = 0;
  let dLon = 0;
  for (const [i, p] of served.entries()) {
    out.push({ dLat, dLon });
    const next = served[i + 1];
    if (!next) break;
    const d = p.speed! * (next.time - p.time);
    const lat = startLat + dLat;
    dLat += (d * Math.cos(p.heading! * RAD)) / METRES_PER_DEGREE;
    dLon += (d * Math.sin(p.heading! * RAD)) / (METRES_PER_DEGREE * Math.cos(lat * RAD));
  }
  return out;
}

/**
 * Where the track started, given each served point's displacement (degrees) from the start:
 * the middle of what every point's cell allows (start + displacement lies in that cell).
 */
export function anchoredStart(
  served: readonly TrackPoint[],
  moves: readonly { dLat: number; dLon: number }[],
  precisionM: number,
): { lat: number; lon: number } {
  const latStep = gridLatStep(precisionM);
  let [latLo, latHi, lonLo, lonHi] = [-Infinity, Infinity, -Infinity, Infinity];
  for (const [i, p] of served.entries()) {
    const move = moves[i]!;
    const lonStep = gridLonStep(latStep, p.lat);
    latLo = Math.max(latLo, p.lat - latStep / 2 - move.dLat);
    latHi = Math.min(latHi, p.lat + latStep / 2 - move.dLat);
    lonLo = Math.max(lonLo, p.lon - lonStep / 2 - move.dLon);
    lonHi = Math.min(lonHi, p.lon + lonStep / 2 - move.dLon);
  }
  return { lat: (latLo + latHi) / 2, lon: (lonLo + lonHi) / 2 };
}

/** The attack's estimate of where the track started, from its served points (oldest first). */
export function deadReckonStart(served: readonly TrackPoint[], precisionM: number): { lat: number; lon: number } {
  let estimate = { lat: served[0]!.lat, lon: served[0]!.lon };
  // Twice: the second pass integrates the longitudes from the first pass's start.
  for (let pass = 0; pass < 2; pass += 1)
    estimate = anchoredStart(served, displacements(served, estimate.lat), precisionM);
  return estimate;
}

/**
 * The attack without speed and heading, from times and served places alone: a constant velocity
 * fitted (least squares) to the served places over time, then anchored on the cells as above.
 */
export function constantVelocityStart(served: readonly TrackPoint[], precisionM: number): { lat: number; lon: number } {
  const t0 = served[0]!.time;
  const n = served.length;
  const mean = (f: (p: TrackPoint) => number) => served.reduce((sum, p) => sum + f(p), 0) / n;
  const mt = mean((p) => p.time - t0);
  const varT = mean((p) => (p.time - t0 - mt) ** 2);
  if (varT === 0) return { lat: served[0]!.lat, lon: served[0]!.lon };
  const slope = (f: (p: TrackPoint) => number) => {
    const mf = mean(f);
    return mean((p) => (p.time - t0 - mt) * (f(p) - mf)) / varT;
  };
  const vLat = slope((p) => p.lat);
  const vLon = slope((p) => p.lon);
  const moves = served.map((p) => ({ dLat: vLat * (p.time - t0), dLon: vLon * (p.time - t0) }));
  return anchoredStart(served, moves, precisionM);
}
