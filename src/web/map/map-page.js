// @ts-check
// The signed-in Map page (docs/maps.md "The Map page"): the map of src/web/map/waypost-map.js,
// plus what only the owner sees: a point's accuracy on click, one day's track, and the form
// applied as soon as "What strangers see" is switched. Reads the JSON API with the session. A
// day's page draws its small map with it too (docs/maps.md "A day's map"): a track, no tiles, no form.
/* global document */
import { createMap, optionsOf } from './waypost-map.js';

/** @typedef {import('../../locations/locations.schemas.ts').Location} Location */
/** @typedef {import('../../history/tracks.logic.ts').DayTrack} DayTrack */
/** @typedef {import('./waypost-map.js').MapHandle} MapHandle */

// The map's element (src/web/map/map.page.ts), typed as there: describe() runs only on its map.
const element = /** @type {HTMLElement} */ (document.querySelector('[data-waypost-map]'));
const status = document.getElementById('map-status');
const form = /** @type {HTMLFormElement | null} */ (document.getElementById('map-form'));

/**
 * The point's accuracy and scope, from the collections (the tile has only its time).
 * @param {number} time
 * @returns {Promise<string[]>}
 */
async function describe(time) {
  const query = `since_time=${time}&until_time=${time + 0.001}&count=10`;
  const scopes = element.dataset.view === 'public' ? ['public'] : ['private', 'public'];
  for (const scope of scopes) {
    const response = await fetch(`/locations/${scope}?${query}`, { headers: { accept: 'application/json' } });
    if (!response.ok) continue;
    /** @type {Location | undefined} the first of the Location[] the collection answers */
    const point = (await response.json())[0];
    if (!point) continue;
    const accuracy = point.accuracy === null ? 'unknown' : `${Math.round(point.accuracy)} m`;
    return [`Accuracy: ${accuracy}`, point.scope === 'public' ? 'Public' : 'Private'];
  }
  return [];
}

/** @param {string} text */
function say(text) {
  if (status) status.textContent = text;
}

/**
 * @param {MapHandle} handle
 * @param {string} url
 */
async function showTrack(handle, url) {
  const response = await fetch(url, { headers: { accept: 'application/geo+json' } });
  if (!response.ok) {
    say('The track of that day could not be loaded.');
    return;
  }
  /** @type {DayTrack} what GET /locations/tracks/<date> answers */
  const track = await response.json();
  handle.showTrack(track);
  const { points, distance_m: distance, moving_s: moving } = track.properties;
  if (!track.geometry) say(points === 0 ? 'No points on that day.' : 'Only one point on that day.');
  else
    say(`That day: ${points} points, ${(distance / 1000).toFixed(1)} km, ${Math.round(moving / 60)} minutes moving.`);
}

if (element) {
  const handle = await createMap(element, { ...optionsOf(element), describe });
  if (handle && element.dataset.track) await showTrack(handle, element.dataset.track);
}
form?.querySelector('input[name="view"]')?.addEventListener('change', () => form.requestSubmit());
