// What an unnamed place is called: its town and country, found offline (docs/history.md
// "Place labels"). The towns and the borders are read once, at the first call (about 230 ms),
// and stay in memory (about 17 MB); a label then takes tens of microseconds.
import { readCities, type Cities } from './cities.ts';
import { countryAt, countryName } from './country.ts';
import { townAt } from './town.ts';

export interface PlaceLabel {
  /** The town or city as GeoNames spells it ("Berlin", "Lisbon", "Köln"); null beyond 30 km of any. */
  city: string | null;
  /** ISO 3166-1 alpha-2; null in open sea. */
  country: string | null;
  /** The country's English name ("Germany"). */
  countryName: string | null;
}

const NOWHERE: PlaceLabel = { city: null, country: null, countryName: null };

let cities: Cities | undefined;

export function labelOf(lat: number, lon: number): PlaceLabel {
  // NaN and latitudes past a pole name nothing; a longitude past ±180 is the same meridian
  // as one within.
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90) return NOWHERE;
  const east = (((lon % 360) + 540) % 360) - 180;
  cities ??= readCities();
  const country = countryAt(lat, east);
  const town = townAt(cities, lat, east, country);
  return {
    city: town === undefined ? null : cities.names[town]!,
    country,
    countryName: country === null ? null : countryName(country),
  };
}
