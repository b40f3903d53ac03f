// Which town a point is named after (docs/history.md "Place labels"). The nearest town's centre
// is often the wrong answer: at the Eiffel Tower it is Neuilly-sur-Seine, in Berlin's Köpenick
// Schönefeld, at Times Square Weehawken across the Hudson. So each town reaches as far as its
// size says, and a point inside one or more reaches takes the town it is deepest inside; a
// point in no town's reach (the countryside) takes the nearest town; none beyond MAX_KM.
import { around, distance } from 'geokdbush';
import type { Cities } from './cities.ts';

/** A town farther than this is not where one was: open sea, desert, mountains. */
export const MAX_KM = 30;

/**
 * How far a town of this population reaches, in km: about its radius. Bigger cities are
 * denser, so the radius grows slower than the square root of the population: 0.03 · N^0.42
 * gives Berlin (3.4 million) 16.7 km, the radius of a disc of Berlin's area (891 km²), a town
 * of 100,000 3.8 km, and a village of 1,000 (the smallest in the data, and the floor for towns
 * whose population is unknown) 0.55 km.
 */
export function reachKm(population: number): number {
  return 0.03 * Math.max(population, 1000) ** 0.42;
}

/**
 * The id of the town `lat`, `lon` is named after, or undefined when none is within MAX_KM.
 * Towns of `country` (ISO 3166-1 alpha-2) come first, so a point in north Kehl is not named
 * after Strasbourg across the Rhine; towns of any country count when none of it is near (a
 * border the two data sets draw differently) or `country` is null.
 */
export function townAt(cities: Cities, lat: number, lon: number, country: string | null): number | undefined {
  const near = around(cities.index, lon, lat, Infinity, MAX_KM);
  const ofCountry = country === null ? near : near.filter((id) => cities.countries[id] === country);
  const candidates = ofCountry.length > 0 ? ofCountry : near;
  let deepest: number | undefined;
  let depth = Infinity;
  for (const id of candidates) {
    const km = distance(lon, lat, cities.coordinates[2 * id]!, cities.coordinates[2 * id + 1]!);
    const share = km / reachKm(cities.population[id]!);
    if (share <= 1 && share < depth) {
      deepest = id;
      depth = share;
    }
  }
  // `around` answers nearest first.
  return deepest ?? candidates[0];
}
