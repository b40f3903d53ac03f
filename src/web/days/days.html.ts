// How the pages say visits and trips: a place's name, durations, distances, modes, clock times
// on a day, and the card that sums a day up on the Timeline (docs/design.md "The web app").
import { html, type Html } from '../../lib/html.ts';
import { countryName } from '../../places/country.ts';
import type { PlaceRef } from '../../places/places.schemas.ts';
import type { TripJson, VisitJson } from '../../visits/visits.schemas.ts';
import { clockOf, dayHeading, dayOf } from '../time.ts';
import type { Spans } from './spans.ts';

export const MODE_LABEL: Record<TripJson['mode'], string> = {
  walking: 'Walking',
  cycling: 'Cycling',
  driving: 'Driving',
  train: 'Train',
  flight: 'Flight',
  unknown: 'On the move',
};

/** The person's name for the place, else its town, else that it has none. */
export function placeTitle(place: Pick<PlaceRef, 'name' | 'city'>): string {
  return place.name ?? place.city ?? 'Unnamed place';
}

/** "Berlin, Germany": where the place is, when it is known. */
export function placeWhere(place: Pick<PlaceRef, 'city' | 'country'>): string {
  const country = place.country ? countryName(place.country) : undefined;
  return [place.city, country].filter(Boolean).join(', ');
}

/** "45 min", "8 h 30 min", "2 d 3 h". */
export function durationText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return hours % 24 === 0 ? `${Math.floor(hours / 24)} d` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** "850 m", "2.4 km", "1,204 km". */
export function distanceText(metres: number): string {
  if (metres < 1000) return `${Math.round(metres)} m`;
  if (metres < 100_000) return `${(metres / 1000).toFixed(1)} km`;
  return `${Math.round(metres / 1000).toLocaleString('en')} km`;
}

/** "5 May" for a `YYYY-MM-DD`, or "Sun 5 May" with the weekday. */
export function shortDay(day: string, weekday = false): string {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString('en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    ...(weekday ? { weekday: 'short' } : {}),
  });
}

/** The clock time of an instant, with its date when it is not on `day` (a stay from the night before). */
export function clockOn(ms: number, timezone: string, day: string): Html {
  const other = dayOf(ms, timezone);
  return html`<time datetime="${new Date(ms).toISOString()}"
    >${clockOf(ms, timezone)}${other === day ? '' : ` on ${shortDay(other)}`}</time
  >`;
}

/** "08:30–17:00" on the day. */
export function spanTimes(span: { start_time: number; end_time: number }, timezone: string, day: string): Html {
  return html`${clockOn(span.start_time * 1000, timezone, day)}–${clockOn(span.end_time * 1000, timezone, day)}`;
}

/** The metres of the trips travelled within `[start, end)`, a trip across an edge by its share of time. */
export function distanceWithin(trips: readonly TripJson[], start: number, end: number): number {
  let metres = 0;
  for (const trip of trips) {
    const from = trip.start_time * 1000;
    const to = trip.end_time * 1000;
    const inside = Math.max(0, Math.min(to, end) - Math.max(from, start));
    metres += to > from ? (trip.distance_m * inside) / (to - from) : trip.distance_m;
  }
  return metres;
}

/** "3 stays, 2 trips, 2.9 km" (what there is of it; call it with at least one stay or trip). */
export function spansLine(spans: Spans, start: number, end: number): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const parts = [];
  if (spans.visits.length > 0) parts.push(count(spans.visits.length, 'stay', 'stays'));
  if (spans.trips.length > 0) {
    parts.push(count(spans.trips.length, 'trip', 'trips'), distanceText(distanceWithin(spans.trips, start, end)));
  }
  return parts.join(', ');
}

/** The stays and trips a Timeline card names, at most; the day's page has them all. */
const CARD_STEPS = 12;

type Step = { kind: 'visit'; span: VisitJson } | { kind: 'trip'; span: TripJson };

/**
 * A day on the Timeline: where the person was and how they moved, in order, and the link to the
 * day's page. The location history shows this way rather than a card per point.
 */
export function dayCard(day: string, spans: Spans, timezone: string, bounds: { start: number; end: number }): Html {
  const steps: Step[] = [
    ...spans.visits.map((span): Step => ({ kind: 'visit', span })),
    ...spans.trips.map((span): Step => ({ kind: 'trip', span })),
  ].sort((a, b) => a.span.start_time - b.span.start_time);
  const shown = steps.slice(0, CARD_STEPS);
  return html`<article class="card day-card" data-kind="day" data-day="${day}">
    <p class="meta">Where you were · ${spansLine(spans, bounds.start, bounds.end)}</p>
    <ol class="day-line">
      ${shown.map((step) =>
        step.kind === 'visit'
          ? html`<li class="stop">
              <strong>${placeTitle(step.span.place)}</strong>
              <span class="meta">${spanTimes(step.span, timezone, day)}</span>
            </li>`
          : html`<li class="move">
              ${MODE_LABEL[step.span.mode]}, ${distanceText(step.span.distance_m)}
              <span class="meta">${durationText((step.span.end_time - step.span.start_time) * 1000)}</span>
            </li>`,
      )}
      ${steps.length > shown.length ? html`<li class="more">and ${steps.length - shown.length} more</li>` : ''}
    </ol>
    <p>
      <a href="/app/days/${day}">The whole day<span class="visually-hidden">, ${dayHeading(day)}</span></a>
    </p>
  </article>`;
}
