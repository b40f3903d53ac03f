// The person's places as the pages list them (docs/design.md "The web app"): the named ones by
// name, then the unnamed ones by town, each with how far it is from where the person looks.
import { html, type Html } from '../../lib/html.ts';
import { distanceM } from '../../lib/distance.ts';
import type { Place } from '../../places/places.schemas.ts';
import { distanceText, placeTitle } from './days.html.ts';

const byText = (a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' });

/** Named places by name, then the unnamed by town (those far from any town last), the busiest first within a town. */
export function placesInOrder(places: readonly Place[]): Place[] {
  const ties = (a: Place, b: Place) => b.visits - a.visits || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const named = places.filter((p) => p.name !== null).sort((a, b) => byText(a.name ?? '', b.name ?? '') || ties(a, b));
  const unnamed = places
    .filter((p) => p.name === null)
    .sort(
      (a, b) =>
        (a.city === null ? 1 : 0) - (b.city === null ? 1 : 0) || byText(a.city ?? '', b.city ?? '') || ties(a, b),
    );
  return [...named, ...unnamed];
}

/** "Home, 120 m away" or "Berlin (unnamed), 2.1 km away": two unnamed places in one town differ by distance. */
function optionText(place: Place, from: { lat: number; lon: number }): string {
  const title = place.name ?? `${placeTitle(place)} (unnamed)`;
  return `${title}, ${distanceText(distanceM(from, place))} away`;
}

/**
 * The options of a select of places, in two groups as placesInOrder sorts them, `selected`
 * chosen. `from` is where the distances are measured from.
 */
export function placeOptions(places: readonly Place[], from: { lat: number; lon: number }, selected?: string): Html {
  const ordered = placesInOrder(places);
  const option = (place: Place) =>
    html`<option value="${place.id}" ${place.id === selected ? html`selected` : ''}>
      ${optionText(place, from)}
    </option>`;
  const named = ordered.filter((p) => p.name !== null);
  const unnamed = ordered.filter((p) => p.name === null);
  return html`${named.length ? html`<optgroup label="Named">${named.map(option)}</optgroup>` : ''}${
    unnamed.length ? html`<optgroup label="Unnamed, by town">${unnamed.map(option)}</optgroup>` : ''
  }`;
}

/** The `count` places nearest to `place`, itself left out, nearest first. */
export function nearestPlaces(places: readonly Place[], place: Place, count: number): Place[] {
  return places
    .filter((p) => p.id !== place.id)
    .map((p) => ({ p, metres: distanceM(place, p) }))
    .sort((a, b) => a.metres - b.metres)
    .slice(0, count)
    .map(({ p }) => p);
}
