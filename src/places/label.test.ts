// Labels of places from the shipped towns and borders (docs/history.md "Place labels"): known
// points in cities, at sea, across the antimeridian and at the poles; the rule that picks a
// town, on a few made-up towns whose distances are worked out by hand.
import { describe, expect, it } from 'vitest';
import { citiesOf, type Town } from './cities.ts';
import { labelOf } from './label.ts';
import { MAX_KM, reachKm, townAt } from './town.ts';

const nowhere = { city: null, country: null, countryName: null };

describe('labelOf', () => {
  it('names a point in central Berlin and one in Lisbon after the city, as GeoNames spells it', () => {
    expect(labelOf(52.5219, 13.4132)).toEqual({ city: 'Berlin', country: 'DE', countryName: 'Germany' });
    expect(labelOf(38.7106, -9.1366)).toEqual({ city: 'Lisbon', country: 'PT', countryName: 'Portugal' });
  });

  it('names a point in a big city after the city, not the nearest suburb or district', () => {
    // The nearest towns are Neuilly-sur-Seine, Schönefeld and Weehawken.
    expect(labelOf(48.8584, 2.2945).city).toBe('Paris');
    expect(labelOf(52.4455, 13.5746).city).toBe('Berlin');
    expect(labelOf(40.758, -73.9855)).toEqual({ city: 'New York City', country: 'US', countryName: 'United States' });
  });

  it('keeps a town beside a big city its own name, and a town across a border its country', () => {
    expect(labelOf(52.4078, 13.2236).city).toBe('Kleinmachnow');
    // North Kehl is deeper in Strasbourg's reach, across the Rhine, than in Kehl's.
    expect(labelOf(48.595, 7.815)).toEqual({ city: 'Kehl', country: 'DE', countryName: 'Germany' });
  });

  it('codes territories as ISO 3166-1 does, and exceptionally reserved codes as their country', () => {
    expect(labelOf(18.4655, -66.1057)).toEqual({ city: 'San Juan', country: 'PR', countryName: 'Puerto Rico' });
    // Ceuta's reserved code is EA.
    expect(labelOf(35.89, -5.32)).toEqual({ city: 'Ceuta', country: 'ES', countryName: 'Spain' });
  });

  it('names nothing in the middle of the Atlantic', () => {
    expect(labelOf(30, -40)).toEqual(nowhere);
  });

  it('finds Fiji on both sides of the antimeridian, with no town within 30 km on Taveuni', () => {
    const fiji = { city: null, country: 'FJ', countryName: 'Fiji' };
    expect(labelOf(-16.8, 179.99)).toEqual(fiji);
    expect(labelOf(-16.85, -179.97)).toEqual(fiji);
    expect(labelOf(-16.8, 180)).toEqual(fiji);
    expect(labelOf(-16.8, -180)).toEqual(fiji);
  });

  it('answers at the poles', () => {
    expect(labelOf(90, 0)).toEqual(nowhere);
    expect(labelOf(90, 180)).toEqual(nowhere);
    expect(labelOf(-90, 0)).toEqual({ city: null, country: 'AQ', countryName: 'Antarctica' });
  });

  it('names nothing for a position that is none, and wraps a longitude past ±180', () => {
    expect(labelOf(Number.NaN, 13.4)).toEqual(nowhere);
    expect(labelOf(52.5, Number.NaN)).toEqual(nowhere);
    expect(labelOf(52.5, Number.POSITIVE_INFINITY)).toEqual(nowhere);
    expect(labelOf(90.5, 0)).toEqual(nowhere);
    expect(labelOf(52.5219, 13.4132 + 360)).toEqual(labelOf(52.5219, 13.4132));
    expect(labelOf(52.5219, 13.4132 - 720).city).toBe('Berlin');
  });
});

describe('townAt', () => {
  // On the equator a degree of longitude is 111.195 km (geokdbush's sphere of radius 6371 km).
  const town = (name: string, lon: number, population: number, country = 'AA', lat = 0): Town => ({
    name,
    country,
    population,
    lat,
    lon,
  });
  const nameAt = (towns: Town[], lat: number, lon: number, country: string | null = 'AA') => {
    const cities = citiesOf(towns);
    const id = townAt(cities, lat, lon, country);
    return id === undefined ? null : cities.names[id];
  };

  it('gives a town a reach of 0.03 km times its population to the power 0.42, 1,000 at least', () => {
    expect(reachKm(1000)).toBeCloseTo(0.5459, 4);
    expect(reachKm(0)).toBe(reachKm(1000));
    expect(reachKm(1_000_000)).toBeCloseTo(9.934, 3);
  });

  it('takes the town whose reach the point is deepest inside', () => {
    // The village's 0.445 km is 0.82 of its reach, the city's 5.56 km 0.56 of its.
    const city = town('City', 0.05, 1_000_000);
    expect(nameAt([town('Village', 0.004, 1000), city], 0, 0)).toBe('City');
    // 0.222 km is 0.41 of the village's reach.
    expect(nameAt([town('Village', 0.002, 1000), city], 0, 0)).toBe('Village');
  });

  it('takes the nearest town when the point is in no reach, up to 30 km', () => {
    expect(MAX_KM).toBe(30);
    // 2.2 km from a village, 3.3 km from a town of 10,000 that reaches 1.44 km.
    expect(nameAt([town('Town', 0.03, 10_000), town('Village', 0.02, 1000)], 0, 0)).toBe('Village');
    expect(nameAt([town('Far', 0.26, 5000)], 0, 0)).toBe('Far'); // 28.9 km
    expect(nameAt([town('Too far', 0.28, 5000)], 0, 0)).toBeNull(); // 31.1 km
  });

  it('measures across the antimeridian and near the poles', () => {
    // 0.1 degree of longitude across ±180 is 11.1 km.
    expect(nameAt([town('East', 179.95, 1000), town('Far west', 179.5, 1_000_000)], 0, -179.95)).toBe('East');
    expect(nameAt([town('West', -179.99, 1000)], 0, 179.91)).toBe('West');
    // At 89.9° north every longitude is within 22.2 km.
    expect(nameAt([town('Polar', 0, 1000, 'AA', 89.9)], 89.9, 180)).toBe('Polar');
    expect(nameAt([town('Polar', 0, 1000, 'AA', 89.9)], 90, 0)).toBe('Polar');
  });

  it("prefers the point's country's towns, and takes any when none of them is near", () => {
    const towns = [town('Big', 0.01, 1_000_000, 'BB'), town('Small', 0.1, 1000, 'AA')];
    expect(nameAt(towns, 0, 0, 'AA')).toBe('Small');
    expect(nameAt(towns, 0, 0, 'CC')).toBe('Big');
    expect(nameAt(towns, 0, 0, null)).toBe('Big');
  });
});
