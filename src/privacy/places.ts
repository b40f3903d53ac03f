// Where a person's public items are shown (docs/privacy.md): at the owner's
// `public_location_precision_m`, and nowhere inside a privacy zone (src/privacy/zones.ts).
// The one place every public answer asks, and the one that keeps the points' hidden flags.
import type { Db } from '../db/database.ts';
import type { Box } from '../lib/box.ts';
import {
  findPlaceSettings,
  hiddenCandidates,
  lockForPointWrite,
  lockForZoneChange,
  setHidden,
  type PlaceSettings,
} from './places.repo.ts';
import { roundPoint } from './precision.ts';
import { hiddenReachM, hideRule, HIDES_NOTHING, parseZones, type HideRule, type Zone } from './zones.ts';

/** The precision of a person who has not chosen one: 1000 m hides the house, not the town. */
export const PRECISION_DEFAULT_M = 1000;
export const PRECISION_MAX_M = 100_000;

/** What a point says besides its time: its place, what the device measured, and where it came from. */
export interface PointDetails {
  lat: number;
  lon: number;
  alt: number | null;
  accuracy: number | null;
  speed: number | null;
  heading: number | null;
  source: string | null;
}

export interface PublicPlaces {
  /** Whether these are the owner's exact places (`EXACT_PLACES`): then nothing is hidden from the reader. */
  exact: boolean;
  precisionM: number;
  /** Whether an exact place lies in the area the owner's privacy zones hide. */
  hides: HideRule;
  /** The place a public item at this exact place is shown at, zones aside (the owner's own view). */
  round(lat: number, lon: number): { lat: number; lon: number };
  /** Where a public item at this exact place is shown to anyone: rounded, or nowhere (null) in a zone. */
  serve(lat: number, lon: number): { lat: number; lon: number } | null;
  /** What a public point at this exact place says to the reader (docs/privacy.md "What a public point says"). */
  point(point: PointDetails): PointDetails;
}

/**
 * A public point as strangers get it. Above precision 0 only its rounded place and its time: the
 * device's speed and heading would let anyone integrate the track and pin it inside the cells
 * (dead reckoning), and altitude and accuracy are exact measurements too, so they are null and
 * the accuracy is the precision. At precision 0 the owner publishes exact points, measurements
 * and all. `source` names one of the owner's services, a private object: null for strangers.
 */
function strangersPoint(precisionM: number, round: PublicPlaces['round']) {
  return (point: PointDetails): PointDetails => {
    if (precisionM <= 0) return { ...point, source: null };
    return {
      ...round(point.lat, point.lon),
      alt: null,
      accuracy: precisionM,
      speed: null,
      heading: null,
      source: null,
    };
  };
}

/** How strangers are shown a person's public items, at this precision and these zones. */
export function publicPlaces(precisionM: number, zones: readonly Zone[] = []): PublicPlaces {
  const hides = hideRule(zones, precisionM);
  const round = (lat: number, lon: number) => roundPoint(lat, lon, precisionM);
  const serve = (lat: number, lon: number) => (hides(lat, lon) ? null : round(lat, lon));
  return { exact: false, precisionM, hides, round, serve, point: strangersPoint(precisionM, round) };
}

/**
 * Exact places, every field, no zones: the owner's own reading (with `get_private_scope`), their
 * export, their private items.
 */
export const EXACT_PLACES: PublicPlaces = {
  exact: true,
  precisionM: 0,
  hides: HIDES_NOTHING,
  round: (lat, lon) => ({ lat, lon }),
  serve: (lat, lon) => ({ lat, lon }),
  point: (point) => ({ ...point }),
};

function placesFrom(settings: PlaceSettings | undefined): PublicPlaces {
  if (!settings) return publicPlaces(PRECISION_DEFAULT_M);
  return publicPlaces(settings.precisionM, parseZones(settings.zones));
}

/** How a person's public places are shown, from their settings. */
export async function publicPlacesOf(db: Db, userId: string): Promise<PublicPlaces> {
  return placesFrom(await findPlaceSettings(db, userId));
}

/** Strangers' rule for a page with no public place on it: what else it hides still holds. */
const UNPLACED = publicPlaces(PRECISION_DEFAULT_M);

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
  // No public item with a place: no place is served, so the default rule stands in, unread.
  return needed ? publicPlacesOf(db, userId) : UNPLACED;
}

/** The places a reader is shown the owner's `rows` at: exact when `exact` (`readsExactly`, src/items/access.ts), else the public ones. */
export async function placesForReader(
  db: Db,
  userId: string,
  exact: boolean,
  rows: readonly { scope: string; lat: number | null }[],
): Promise<PublicPlaces> {
  return exact ? EXACT_PLACES : publicPlacesFor(db, userId, rows);
}

/**
 * Inside the transaction that writes points of these people: the rule that sets each point's
 * `hidden` flag, read so that a concurrent change of the zones cannot be missed (places.repo.ts).
 */
export async function hideRulesForWrite(trx: Db, userIds: readonly string[]): Promise<Map<string, HideRule>> {
  await lockForPointWrite(trx, userIds);
  const rules = new Map<string, HideRule>();
  for (const userId of new Set(userIds)) rules.set(userId, placesFrom(await findPlaceSettings(trx, userId)).hides);
  return rules;
}

/** Inside the transaction that changes the zones or the precision, before reading the settings. */
export const lockPlacesForChange = lockForZoneChange;

/** A box (degrees) around everything a zone can hide. */
function reachBox(zone: Zone, precisionM: number): Box {
  const dLat = hiddenReachM(zone, precisionM) / 111_000;
  const minLat = Math.max(-90, zone.lat - dLat);
  const maxLat = Math.min(90, zone.lat + dLat);
  const cos = Math.cos(Math.min(89.9, Math.max(Math.abs(minLat), Math.abs(maxLat))) * (Math.PI / 180));
  const dLon = dLat / cos;
  if (dLon >= 180) return { minLon: -180, maxLon: 180, minLat, maxLat };
  const wrap = (lon: number) => (lon < -180 ? lon + 360 : lon > 180 ? lon - 360 : lon);
  return { minLon: wrap(zone.lon - dLon), maxLon: wrap(zone.lon + dLon), minLat, maxLat };
}

/**
 * After the zones or the precision changed, in the same transaction: every point of the person
 * whose flag is now wrong gets the right one. Only the points hidden before and those near a
 * zone are read. The counters' triggers see a flag that changed as a public write.
 */
export async function refreshHiddenFlags(
  trx: Db,
  userId: string,
  zones: readonly Zone[],
  precisionM: number,
): Promise<{ hidden: number; shown: number }> {
  const hides = hideRule(zones, precisionM);
  const candidates = await hiddenCandidates(
    trx,
    userId,
    zones.map((zone) => reachBox(zone, precisionM)),
  );
  const hide: string[] = [];
  const show: string[] = [];
  for (const row of candidates) {
    const now = hides(row.lat, row.lon) ? 1 : 0;
    if (now !== row.hidden) (now ? hide : show).push(row.id);
  }
  await setHidden(trx, userId, hide, 1);
  await setHidden(trx, userId, show, 0);
  return { hidden: hide.length, shown: show.length };
}
