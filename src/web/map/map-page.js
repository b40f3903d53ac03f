// @ts-check
// The signed-in Map page (docs/maps.md "The Map page"): the map of src/web/map/waypost-map.js,
// plus what only the owner sees: a point's accuracy on click with a button that deletes it
// (DELETE /locations/id/<id>, after a confirmation), one day's track, the points drawn as dots,
// lines or a heatmap as the radio buttons switch, and the form applied as soon as "What
// strangers see" is switched. Reads and writes the JSON API with the session. A
// day's page draws its small map with it too (docs/maps.md "A day's map"): a track, no tiles, no form.
/* global document, window */
import { createMap, optionsOf, when as whenIn } from './waypost-map.js';

/** @typedef {import('../../locations/locations.schemas.ts').Location} Location */
/** @typedef {import('../../history/tracks.logic.ts').DayTrack} DayTrack */
/** @typedef {import('./waypost-map.js').MapHandle} MapHandle */

// The map's element (src/web/map/map.page.ts), typed as there: describe() runs only on its map.
const element = /** @type {HTMLElement} */ (document.querySelector('[data-waypost-map]'));
const status = document.getElementById('map-status');
const form = /** @type {HTMLFormElement | null} */ (document.getElementById('map-form'));
const countLine = document.getElementById('map-count');
const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
/** @type {MapHandle | undefined} */
let handle;

/**
 * On the owner's clock (the page names the zone in data-zone), as the popups say it.
 * @param {number} seconds
 */
const when = (seconds) => whenIn(seconds, element.dataset.zone);

/**
 * The button that deletes one point, after asking; the map reads its tiles again, and the count
 * above it goes down by one.
 * @param {Location} point
 * @param {() => void} close closes the popup
 */
function deleteButton(point, close) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'danger small';
  button.textContent = 'Delete this point';
  button.addEventListener('click', async () => {
    if (!window.confirm(`Delete the point of ${when(point.time)}? This cannot be undone.`)) return;
    button.disabled = true;
    const response = await fetch(`/locations/id/${encodeURIComponent(point.id)}`, {
      method: 'DELETE',
      headers: { accept: 'application/json', 'x-csrf-token': csrf },
      credentials: 'same-origin',
    });
    if (!response.ok) {
      button.disabled = false;
      say(`The point was not deleted (the server answered ${response.status}).`);
      return;
    }
    close();
    handle?.refresh();
    const left = Number(countLine?.dataset.points) - 1;
    if (countLine && countLine.dataset.points && left >= 0) {
      countLine.dataset.points = String(left);
      countLine.textContent = (countLine.textContent ?? '')
        .trim()
        .replace(/^[\d,]+ points?/, `${left.toLocaleString('en-GB')} point${left === 1 ? '' : 's'}`);
    }
    say(`The point of ${when(point.time)} was deleted.`);
  });
  return button;
}

/**
 * The point's accuracy and scope, from the collections (the tile has only its time), and on the
 * owner's map a button that deletes it.
 * @param {number} time
 * @param {() => void} close
 * @returns {Promise<(string | Node)[]>}
 */
async function describe(time, close) {
  const query = `since_time=${time}&until_time=${time + 0.001}&count=10`;
  const scopes = element.dataset.view === 'public' ? ['public'] : ['private', 'public'];
  for (const scope of scopes) {
    const response = await fetch(`/locations/${scope}?${query}`, { headers: { accept: 'application/json' } });
    if (!response.ok) continue;
    /** @type {Location | undefined} the first of the Location[] the collection answers */
    const point = (await response.json())[0];
    if (!point) continue;
    const accuracy = point.accuracy === null ? 'unknown' : `${Math.round(point.accuracy)} m`;
    const lines = [`Accuracy: ${accuracy}`, point.scope === 'public' ? 'Public' : 'Private'];
    return element.dataset.view === 'public' ? lines : [...lines, deleteButton(point, close)];
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
  handle = await createMap(element, { ...optionsOf(element), describe });
  if (handle && element.dataset.track) await showTrack(handle, element.dataset.track);
}
// The radio buttons redraw at once, and the address keeps the choice (a reload or a link shows the same).
for (const radio of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="draw"]'))) {
  radio.addEventListener('change', () => {
    const draw = radio.value === 'lines' || radio.value === 'heat' ? radio.value : 'points';
    handle?.setDraw(draw);
    element.dataset.draw = draw;
    const url = new URL(window.location.href);
    if (draw === 'points') url.searchParams.delete('draw');
    else url.searchParams.set('draw', draw);
    window.history.replaceState(null, '', url);
  });
}
form?.querySelector('input[name="view"]')?.addEventListener('change', () => form.requestSubmit());
