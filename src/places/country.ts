// The country a point is in, from country-coder's borders (docs/history.md "Place labels"):
// offline, and loaded only when first asked (its borders take about 50 ms and 5 MB).
import { createRequire } from 'node:module';
import type * as CountryCoder from '@rapideditor/country-coder';

let coder: typeof CountryCoder | undefined;

// Unicode CLDR's English names, the ones interfaces show ("United States", "Netherlands"),
// rather than country-coder's ("United States of America", "Kingdom of the Netherlands").
const englishNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/**
 * The ISO 3166-1 alpha-2 code of the country or territory at `lat`, `lon` (Puerto Rico is PR,
 * Greenland GL, as ISO 3166-1 codes them), or null in open sea, at the North Pole, and where
 * the borders draw no country (Northern Cyprus). Waters near a coast mostly count as the
 * coast's country: country-coder draws its borders over water loosely.
 */
export function countryAt(lat: number, lon: number): string | null {
  coder ??= createRequire(import.meta.url)('@rapideditor/country-coder') as typeof CountryCoder;
  let feature = coder.feature([lon, lat], { level: 'territory', withProp: 'iso1A2' });
  // ISO 3166-1 reserves some codes only "exceptionally" (EA for Ceuta and Melilla): such a place
  // is counted in the country it belongs to (ISO 3166-2 lists Ceuta and Melilla under ES).
  const { isoStatus, country } = feature?.properties ?? {};
  if (isoStatus === 'excRes' && country) feature = coder.feature(country);
  return feature?.properties.iso1A2 ?? null;
}

export function countryName(code: string): string {
  return englishNames.of(code) ?? code;
}
