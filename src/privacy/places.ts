// Where a person's public items are shown (docs/privacy.md): at the owner's
// `public_location_precision_m`. The one place every public answer asks.
import type { Db } from '../db/database.ts';
import { findPlaceSettings } from './places.repo.ts';
import { roundPoint } from './precision.ts';

/** The precision a person has not chosen one: 1000 m hides the house, not the town. */
export const PRECISION_DEFAULT_M = 1000;
export const PRECISION_MAX_M = 100_000;

export interface PublicPlaces {
  precisionM: number;
  /** Where a public item at this exact place is shown. */
  serve(lat: number, lon: number): { lat: number; lon: number };
}

export function publicPlaces(precisionM: number): PublicPlaces {
  return { precisionM, serve: (lat, lon) => roundPoint(lat, lon, precisionM) };
}

/** How a person's public places are shown, from their settings. */
export async function publicPlacesOf(db: Db, userId: string): Promise<PublicPlaces> {
  const settings = await findPlaceSettings(db, userId);
  return publicPlaces(settings?.precisionM ?? PRECISION_DEFAULT_M);
}

/** Exact places: the owner's own copy of their data (the export). */
export const EXACT_PLACES = publicPlaces(0);

/**
 * The owner's public places, read only when one of `rows` is a public item with a place
 * (a page of private items, or of posts without a location, costs no query).
 */
export async function publicPlacesFor(
  db: Db,
  userId: string,
  rows: readonly { scope: string; lat: number | null }[],
): Promise<PublicPlaces> {
  const needed = rows.some((row) => row.scope === 'public' && row.lat !== null);
  // No public item with a place: nothing is served, so exact places stand in.
  return needed ? publicPlacesOf(db, userId) : EXACT_PLACES;
}
