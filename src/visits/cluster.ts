// A group of points at one place: a running accuracy-weighted mean for the question "is this
// point still here?" (constant time a point), and the weighted median as the place's centre
// once the group is done, which noise and the odd stray point barely move.
import { distanceM, MOVING_MIN_MPS } from '../lib/distance.ts';
import { DEFAULT_ACCURACY_M, DEPART_MS, STAY_RADIUS_M, WEIGHT_FLOOR_M, type DetectorPoint } from './model.ts';

/** A long stay keeps at most this many points for its centre: every other one is let go when full. */
const KEPT_MAX = 1024;
const RECENT = 8;

export interface Cluster {
  /** The points kept for the centre, in time order (a regular sample of them on a long stay). */
  points: DetectorPoint[];
  /** Keep one point in `stride` from now on. */
  stride: number;
  /** The latest points, all of them, for the way out (RECENT of them). */
  recent: DetectorPoint[];
  /** medianCentre, until a point comes or goes. */
  median: Centre | null;
  /** Points at the place, including those only passing through its edge (noise beyond the radius). */
  count: number;
  first: DetectorPoint;
  last: DetectorPoint;
  refLat: number;
  refLon: number;
  cosLat: number;
  sumW: number;
  sumX: number;
  sumY: number;
}

export interface Centre {
  lat: number;
  lon: number;
}

/** Metres are not needed to average: degrees of latitude, and of longitude shrunk by cos(lat). */
function wrap(dLon: number): number {
  return dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon;
}

/**
 * A tracker's radius of confidence is about one standard deviation: weight by its inverse
 * square, but count any radius under WEIGHT_FLOOR_M as WEIGHT_FLOOR_M. The weight tells a coarse
 * fix (a cell tower, a Wi-Fi guess of 100-200 m) from a fine one; it cannot tell which of two
 * fine fixes is nearer the truth, and trusting 10 m outdoor fixes over 50 m indoor ones pulls a
 * stay's centre towards the street it was reached by (measured: docs/history.md "Visits and trips").
 */
function weightOf(p: DetectorPoint): number {
  const accuracy = Math.max(WEIGHT_FLOOR_M, p.accuracy ?? DEFAULT_ACCURACY_M);
  return 1 / (accuracy * accuracy);
}

export function newCluster(p: DetectorPoint): Cluster {
  const cluster: Cluster = {
    points: [],
    stride: 1,
    recent: [],
    median: null,
    count: 0,
    first: p,
    last: p,
    refLat: p.lat,
    refLon: p.lon,
    cosLat: Math.cos((p.lat * Math.PI) / 180),
    sumW: 0,
    sumX: 0,
    sumY: 0,
  };
  addPoint(cluster, p);
  return cluster;
}

/** A point at the place: counted, and part of the centre. */
export function addPoint(c: Cluster, p: DetectorPoint) {
  const w = weightOf(p);
  c.sumW += w;
  c.sumX += w * wrap(p.lon - c.refLon) * c.cosLat;
  c.sumY += w * (p.lat - c.refLat);
  if (c.count % c.stride === 0) {
    c.points.push(p);
    if (c.points.length >= KEPT_MAX) {
      c.points = c.points.filter((_, i) => i % 2 === 0);
      c.stride *= 2;
    }
  }
  c.count += 1;
  c.last = p;
  c.median = null;
  c.recent.push(p);
  if (c.recent.length > RECENT) c.recent.shift();
}

/** Takes the latest `k` points out again (fewer than `recent` holds); returns them in time order. */
export function dropLast(c: Cluster, k: number): DetectorPoint[] {
  const dropped = c.recent.splice(c.recent.length - k, k);
  for (const p of dropped) {
    const w = weightOf(p);
    c.sumW -= w;
    c.sumX -= w * wrap(p.lon - c.refLon) * c.cosLat;
    c.sumY -= w * (p.lat - c.refLat);
    const kept = c.points.indexOf(p);
    if (kept >= 0) c.points.splice(kept, 1);
    c.count -= 1;
  }
  c.last = c.recent.at(-1)!;
  c.median = null;
  return dropped;
}

/** Walking out of a stay's radius takes a minute or two. */
export const WAY_OUT_MS = 2 * 60_000;

/**
 * `b` is farther from the centre than `a` by more than their uncertainty, within WAY_OUT_MS
 * and at a moving speed (docs/history.md "Rules for distance and movement"): walking away (or,
 * read backwards, arriving), not noise around a place.
 */
export function recedes(a: DetectorPoint, b: DetectorPoint, centre: Centre): boolean {
  const ms = Math.abs(b.time - a.time);
  if (ms > WAY_OUT_MS) return false;
  const margin = ((a.accuracy ?? DEFAULT_ACCURACY_M) + (b.accuracy ?? DEFAULT_ACCURACY_M)) / 2;
  const away = distanceM(centre, b) - distanceM(centre, a);
  return away > margin && (1000 * away) / ms >= MOVING_MIN_MPS;
}

/** Points near the place that are not part of its centre (noise that wandered past the radius). */
export function addStray(c: Cluster, strays: number) {
  c.count += strays;
}

export function meanCentre(c: Cluster): Centre {
  const lon = c.refLon + c.sumX / c.sumW / (c.cosLat || 1e-9);
  return { lat: c.refLat + c.sumY / c.sumW, lon: wrap(lon) };
}

const scratch = { lat: 0, lon: 0 };

/** Distance from the running mean, without making an object a point (it is asked for every point). */
export function distanceTo(c: Cluster, p: { lat: number; lon: number }): number {
  scratch.lat = c.refLat + c.sumY / c.sumW;
  scratch.lon = wrap(c.refLon + c.sumX / c.sumW / (c.cosLat || 1e-9));
  return distanceM(scratch, p);
}

/**
 * How far from a place's centre a point can be and still be there: the radius, and the point's
 * own uncertainty on top (at most a radius more). An indoor fix claiming 80 m at 150 m from the
 * centre is at the place; an outdoor fix claiming 10 m there has left it.
 */
export function reachOf(p: DetectorPoint): number {
  return STAY_RADIUS_M + Math.min(p.accuracy ?? 0, STAY_RADIUS_M);
}

function weightedMedian(values: Float64Array, weights: Float64Array): number {
  const order = Array.from(values.keys()).sort((a, b) => values[a]! - values[b]!);
  let total = 0;
  for (const w of weights) total += w;
  let sum = 0;
  for (const i of order) {
    sum += weights[i]!;
    if (sum >= total / 2) return values[i]!;
  }
  return values[order.at(-1)!]!;
}

/** The accuracy-weighted median of latitude and of longitude (around the first point, so across the antimeridian too). */
export function medianCentre(c: Cluster): Centre {
  if (c.median) return c.median;
  const n = c.points.length;
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  const ws = new Float64Array(n);
  c.points.forEach((p, i) => {
    xs[i] = wrap(p.lon - c.refLon);
    ys[i] = p.lat;
    ws[i] = weightOf(p);
  });
  c.median = { lat: weightedMedian(ys, ws), lon: wrap(c.refLon + weightedMedian(xs, ws)) };
  return c.median;
}

/** Median distance of the kept points from `centre`, in metres. */
export function spreadM(c: Cluster, centre: Centre): number {
  const distances = c.points.map((p) => distanceM(centre, p)).sort((a, b) => a - b);
  return distances[Math.floor(distances.length / 2)] ?? 0;
}

/** The same place's points in one group, `b`'s after `a`'s, in `a`'s frame. */
export function mergeInto(a: Cluster, b: Cluster, strays: number) {
  for (const p of b.points) addPoint(a, p);
  a.count += b.count - b.points.length + strays;
  a.last = b.last;
}

/** Points outside a place's radius are a departure once they last, or go far. */
export function departed(cluster: Cluster, outside: DetectorPoint[]): boolean {
  const lastOut = outside.at(-1)!;
  return (
    lastOut.time - outside[0]!.time >= DEPART_MS || distanceTo(cluster, lastOut) > STAY_RADIUS_M + reachOf(lastOut)
  );
}
