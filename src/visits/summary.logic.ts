// A year or a month in review (docs/api.md "Visits and trips": GET /locations/summary): read
// from the stored visits and trips of the period in the owner's time zone, so ten years of
// history cost what one year's rows cost. A visit or trip that crosses the period's edge counts
// for the part inside it; a day counts for a country or a city when a visit there touches it.
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { requirePrivateReads } from '../items/access.ts';
import { localDay, zonedToUtc } from '../lib/time.ts';
import { toPlaceRef } from '../places/places.logic.ts';
import { placeRowsOf, type PlaceRow } from '../places/places.repo.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { placesFirstVisited, spansBetween } from './visits.repo.ts';
import { toTrip } from './visits.logic.ts';
import type { Summary, SummaryParams } from './visits.schemas.ts';

/** The places listed, most time first. */
export const SUMMARY_PLACES = 20;

const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

function period(params: SummaryParams, timezone: string): { sinceMs: number; untilMs: number } {
  const { year, month } = params;
  const startWall = Date.UTC(year, (month ?? 1) - 1, 1);
  const endWall = month === undefined ? Date.UTC(year + 1, 0, 1) : Date.UTC(year, month, 1);
  return { sinceMs: zonedToUtc(startWall, timezone), untilMs: zonedToUtc(endWall, timezone) };
}

const inside = (span: { start_time: number; end_time: number }, range: { sinceMs: number; untilMs: number }) =>
  Math.max(0, Math.min(span.end_time, range.untilMs) - Math.max(span.start_time, range.sinceMs));

/** Each key's set of local days, counted and ordered most first (then by key). */
function byDays<K>(days: Map<K, Set<number>>): { key: K; days: number }[] {
  return [...days]
    .map(([key, set]) => ({ key, days: set.size }))
    .sort((a, b) => b.days - a.days || String(a.key).localeCompare(String(b.key)));
}

export async function locationSummary(db: Db, auth: Auth, params: SummaryParams): Promise<Summary> {
  requirePrivateReads(auth);
  const { timezone } = await getSettings(db, auth.userId);
  const range = period(params, timezone);
  const [visits, trips, places, firsts] = await Promise.all([
    spansBetween(db, 'visits', auth.userId, range),
    spansBetween(db, 'trips', auth.userId, range),
    placeRowsOf(db, auth.userId),
    placesFirstVisited(db, auth.userId, range.sinceMs, range.untilMs),
  ]);
  const placeById = new Map<string, PlaceRow>(places.map((place) => [place.id, place]));

  let distance = 0;
  const byMode: Record<string, number> = {};
  let longest: (typeof trips)[number] | undefined;
  for (const trip of trips) {
    const span = trip.end_time - trip.start_time;
    const share = span > 0 ? (trip.distance_m * inside(trip, range)) / span : trip.distance_m;
    distance += share;
    byMode[trip.mode] = (byMode[trip.mode] ?? 0) + share;
    if (!longest || trip.distance_m > longest.distance_m) longest = trip;
  }

  const countryDays = new Map<string, Set<number>>();
  const cityDays = new Map<string, Set<number>>();
  const cityCountry = new Map<string, string | null>();
  const placeTime = new Map<string, { visits: number; ms: number }>();
  for (const visit of visits) {
    const place = placeById.get(visit.place_id);
    const first = localDay(Math.max(visit.start_time, range.sinceMs), timezone);
    const last = localDay(Math.min(visit.end_time, range.untilMs - 1), timezone);
    const add = (map: Map<string, Set<number>>, key: string) => {
      let set = map.get(key);
      if (!set) map.set(key, (set = new Set()));
      for (let day = first; day <= last; day += 1) set.add(day);
    };
    if (place?.country) add(countryDays, place.country);
    if (place?.city) {
      const key = `${place.city}\u0000${place.country ?? ''}`;
      add(cityDays, key);
      cityCountry.set(key, place.country);
    }
    const time = placeTime.get(visit.place_id) ?? { visits: 0, ms: 0 };
    time.visits += 1;
    time.ms += inside(visit, range);
    placeTime.set(visit.place_id, time);
  }

  const round = (metres: number) => Math.round(metres);
  return {
    year: params.year,
    month: params.month ?? null,
    timezone,
    distance_m: round(distance),
    distance_by_mode: Object.fromEntries(Object.entries(byMode).map(([mode, metres]) => [mode, round(metres)])),
    countries: byDays(countryDays).map(({ key, days }) => ({ code: key, name: countryNames.of(key) ?? key, days })),
    cities: byDays(cityDays).map(({ key, days }) => ({
      name: key.split('\u0000')[0]!,
      country: cityCountry.get(key) ?? null,
      days,
    })),
    places: [...placeTime]
      .sort((a, b) => b[1].ms - a[1].ms || a[0].localeCompare(b[0]))
      .slice(0, SUMMARY_PLACES)
      .map(([id, time]) => ({
        place_id: id,
        name: placeById.get(id)?.name ?? null,
        city: placeById.get(id)?.city ?? null,
        visits: time.visits,
        seconds: time.ms / 1000,
      })),
    longest_trip: longest ? toTrip(longest) : null,
    new_places: firsts.flatMap(({ place_id: id }) => {
      const place = placeById.get(id);
      return place ? [toPlaceRef(place)] : [];
    }),
  };
}
