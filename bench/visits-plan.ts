// The true life the visits simulator samples (bench/visits-sim.ts): one person's weeks as stays
// at places and moves along routes, from a seeded random source. Weekdays: home, office (by
// bicycle, car or on foot), lunch at a café, gym or a shop, an evening walk; weekends: a drive or
// a train to another city with a night in a hotel, or a local weekend; every fourth week a flight
// there and back. Nothing here knows about GPS: that is the trackers' part.
import { distanceM } from '../src/lib/distance.ts';
import type { Mode } from '../src/visits/detect.ts';

export type Random = () => number;

/** xorshift32 (Marsaglia, 2003): small, fast, and the same numbers on every machine. */
export function random(seed: number): Random {
  let x = (seed * 2654435761) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

export const uniform = (rand: Random, low: number, high: number) => low + (high - low) * rand();
export function gauss(rand: Random): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

export interface Place {
  name: string;
  lat: number;
  lon: number;
  indoor: boolean;
}

export interface Knot {
  t: number;
  lat: number;
  lon: number;
  cum: number; // metres from the route's start
}

export type Activity =
  | { kind: 'stay'; place: Place; start: number; end: number }
  | { kind: 'move'; mode: Mode; start: number; end: number; knots: Knot[] };

const M_PER_DEG = 111_195;

/** The point `metres` away from `from` towards `bearing` (degrees), on a local flat map. */
function toward(from: { lat: number; lon: number }, bearing: number, metres: number) {
  const b = (bearing * Math.PI) / 180;
  const lat = from.lat + (metres * Math.cos(b)) / M_PER_DEG;
  const lon = from.lon + (metres * Math.sin(b)) / (M_PER_DEG * Math.cos((from.lat * Math.PI) / 180));
  return { lat, lon };
}

function place(name: string, from: { lat: number; lon: number }, bearing: number, metres: number, indoor = true) {
  return { name, indoor, ...toward(from, bearing, metres) };
}

export function places() {
  const home = { name: 'home', lat: 48.137, lon: 11.575, indoor: true };
  const office = place('office', home, 60, 4600);
  const cityB = place('station B', home, 340, 300_000);
  const hotelB = place('hotel B', cityB, 90, 1200);
  const airportC = place('airport C', home, 230, 1_400_000);
  const hotelC = place('hotel C', airportC, 10, 18_000);
  return {
    home,
    office,
    cafe: place('café', office, 200, 450),
    bakery: place('bakery', home, 100, 700),
    kiosk: place('kiosk', home, 250, 300),
    shops: [place('shop 1', home, 20, 900), place('shop 2', home, 140, 1600), place('shop 3', home, 280, 2400)],
    gym: place('gym', home, 320, 2100),
    park: place('park bench', home, 170, 1200, false),
    friend: place('friend', home, 20, 6500),
    station: place('station', home, 200, 1100),
    restStop: place('rest stop', home, 335, 150_000, false),
    cityB,
    hotelB,
    museumB: place('museum B', hotelB, 30, 1500),
    restaurantB: place('restaurant B', hotelB, 250, 800),
    airportA: place('airport A', home, 45, 35_000),
    airportC,
    hotelC,
    venueC: place('venue C', hotelC, 120, 2200),
  };
}

/** Per mode: a leg's length along the way, and its speed (m/s) in town and out of it. */
const LEG_M: Record<Mode, number> = { walking: 120, cycling: 200, driving: 400, train: 3000, flight: 5000, unknown: 0 };

function legSpeed(rand: Random, mode: Mode, fromEnd: number): number {
  switch (mode) {
    case 'walking':
      return uniform(rand, 1.1, 1.6);
    case 'cycling':
      return uniform(rand, 3.8, 6.5);
    case 'driving':
      return fromEnd > 5000 ? uniform(rand, 29, 36) : uniform(rand, 7, 14);
    case 'train':
      return fromEnd > 4000 ? uniform(rand, 45, 65) : 14;
    default:
      return fromEnd > 3000 ? uniform(rand, 200, 240) : 8;
  }
}

/** Stops on the way, seconds: lights and crossings in town, stations on a train, a queue to take off. */
function waitAt(rand: Random, mode: Mode, leg: number, legs: number, fromEnd: number): number {
  if (mode === 'train') return leg === Math.round(legs / 3) || leg === Math.round((2 * legs) / 3) ? 120 : 0;
  if (mode === 'flight') return fromEnd < 3000 && leg < legs / 2 && rand() < 0.3 ? 300 : 0;
  if (fromEnd > 5000) return 0;
  const chance = mode === 'walking' ? 0.1 : mode === 'cycling' ? 0.15 : 0.25;
  return rand() < chance ? uniform(rand, 10, 60) : 0;
}

/** A route from `a` to `b` leaving at `start`: a line that wanders to the side like roads do. */
export function route(rand: Random, a: Place, b: Place, mode: Mode, start: number): Knot[] {
  const straight = distanceM(a, b);
  const legs = Math.max(1, Math.min(2000, Math.round(straight / LEG_M[mode])));
  const amplitude = mode === 'flight' ? 0 : straight * (mode === 'train' ? 0.04 : 0.12);
  const cos = Math.cos((a.lat * Math.PI) / 180);
  const dx = (b.lon - a.lon) * cos;
  const dy = b.lat - a.lat;
  const norm = Math.hypot(dx, dy) || 1;
  const knots: Knot[] = [{ t: start, lat: a.lat, lon: a.lon, cum: 0 }];
  let side = 0;
  for (let i = 1; i <= legs; i += 1) {
    const f = i / legs;
    side = Math.max(-amplitude, Math.min(amplitude, side + 0.5 * LEG_M[mode] * gauss(rand)));
    const offset = (side * Math.sin(Math.PI * f)) / M_PER_DEG;
    const point =
      i === legs
        ? b
        : { lat: a.lat + f * dy + (offset * dx) / norm, lon: a.lon + (f * dx - (offset * dy) / norm) / cos };
    const prev = knots.at(-1)!;
    const metres = distanceM(prev, point);
    const fromEnd = Math.min(prev.cum + metres, straight * 1.1 - prev.cum);
    const t = prev.t + (1000 * metres) / legSpeed(rand, mode, fromEnd);
    knots.push({ t: Math.round(t), lat: point.lat, lon: point.lon, cum: prev.cum + metres });
    const wait = i < legs ? waitAt(rand, mode, i, legs, fromEnd) : 0;
    if (wait > 0) knots.push({ ...knots.at(-1)!, t: Math.round(t + wait * 1000) });
  }
  return knots;
}

/** One person's life, activity by activity, for as long as it is asked. */
export function* life(rand: Random, start: number): Generator<Activity> {
  const p = places();
  let at: Place = p.home;
  let t = start;
  const pending: Activity[] = [];
  let last: Activity | undefined;
  const stayUntil = (end: number) => {
    if (end <= t) return;
    // Staying on (no lunch out) is one stay, not two.
    if (last?.kind === 'stay' && last.place === at && last.end === t) last.end = end;
    else pending.push((last = { kind: 'stay', place: at, start: t, end }));
    t = end;
  };
  const stayFor = (minutes: number, spread = 0) =>
    stayUntil(t + Math.round(uniform(rand, minutes, minutes + spread) * 60_000));
  const go = (to: Place, mode: Mode) => {
    const knots = route(rand, at, to, mode, t);
    pending.push((last = { kind: 'move', mode, start: t, end: knots.at(-1)!.t, knots }));
    t = knots.at(-1)!.t;
    at = to;
  };
  const clock = (day: number, hours: number, spreadMin = 0) =>
    start + day * 86_400_000 + Math.round((hours * 60 + uniform(rand, 0, spreadMin)) * 60_000);

  for (let day = 0; ; day += 1) {
    const weekday = day % 7;
    const week = Math.floor(day / 7) % 4;
    if (week === 3 && weekday === 2) {
      stayUntil(clock(day, 5.5, 30));
      go(p.airportA, 'driving');
      stayFor(80, 40);
      go(p.airportC, 'flight');
      stayFor(20, 15);
      go(p.hotelC, 'driving');
    } else if (week === 3 && (weekday === 3 || weekday === 4)) {
      stayUntil(clock(day, 8.5, 30));
      go(p.venueC, 'walking');
      stayUntil(clock(day, weekday === 3 ? 17 : 13, 60));
      go(p.hotelC, 'walking');
      if (weekday === 4) {
        stayFor(30, 30);
        go(p.airportC, 'driving');
        stayFor(70, 40);
        go(p.airportA, 'flight');
        stayFor(15, 10);
        go(p.home, 'driving');
      }
    } else if (weekday < 5) {
      stayUntil(clock(day, 7.5, 60));
      const commute: Mode = rand() < 0.35 ? 'cycling' : rand() < 0.7 ? 'driving' : 'walking';
      if (rand() < 0.3) {
        go(rand() < 0.5 ? p.bakery : p.kiosk, commute === 'driving' ? 'walking' : commute);
        stayFor(at === p.bakery ? 6 : 3, 3);
      }
      go(p.office, commute);
      stayUntil(clock(day, 12, 30));
      if (rand() < 0.6) {
        go(p.cafe, 'walking');
        stayFor(25, 20);
        go(p.office, 'walking');
      }
      stayUntil(clock(day, 17, 90));
      const errand = rand();
      if (errand < 0.3) {
        go(p.gym, commute);
        stayFor(60, 40);
      } else if (errand < 0.6) {
        go(p.shops[Math.floor(rand() * 3)]!, commute);
        stayFor(10, 30);
      }
      go(p.home, commute);
      if (rand() < 0.25) {
        stayFor(30, 60);
        go(p.park, 'walking');
        stayFor(10, 15);
        go(p.home, 'walking');
      }
    } else if ((week === 0 || week === 1) && weekday === 5) {
      stayUntil(clock(day, 9, 60));
      if (week === 0) {
        go(p.restStop, 'driving');
        stayFor(15, 10);
        go(p.hotelB, 'driving');
      } else {
        go(p.station, 'walking');
        stayFor(10, 10);
        go(p.cityB, 'train');
        go(p.hotelB, 'walking');
      }
      stayFor(30, 30);
      go(p.museumB, 'walking');
      stayFor(100, 60);
      go(p.restaurantB, 'walking');
      stayFor(60, 60);
      go(p.hotelB, 'walking');
    } else if ((week === 0 || week === 1) && weekday === 6) {
      stayUntil(clock(day, 10, 60));
      go(p.restaurantB, 'walking');
      stayFor(45, 30);
      go(p.hotelB, 'walking');
      stayFor(20, 20);
      if (week === 0) go(p.home, 'driving');
      else {
        go(p.cityB, 'walking');
        stayFor(10, 10);
        go(p.station, 'train');
        go(p.home, 'walking');
      }
    } else {
      stayUntil(clock(day, 10, 90));
      if (weekday === 5) {
        go(p.shops[1]!, 'cycling');
        stayFor(40, 40);
        go(p.park, 'cycling');
        stayFor(20, 30);
      } else {
        go(p.friend, 'cycling');
        stayFor(120, 120);
      }
      go(p.home, 'cycling');
    }
    yield* pending.splice(0);
  }
}
