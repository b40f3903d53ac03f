// @ts-check
// The Settings page's two maps (docs/maps.md "The Settings page"):
// - the privacy zones as circles over the person's own points (the owner's tiles); a click
//   places a zone, through the form's script (src/web/assets/settings.js, event "zone-place");
// - what the public precision does: a sample point (the latest point, else the map's centre;
//   a click moves it), the grid cell it falls in and the place strangers are shown, computed
//   by precision.js, the very module the server rounds with (src/privacy/grid.js).
/* global document, HTMLFormElement, HTMLSelectElement */
import { gridLatStep, gridLonStep, roundPoint } from './precision.js';
import { createMap, optionsOf } from './waypost-map.js';

/** @typedef {import('./maplibre-gl.mjs').Map} MapLibre */
/** @typedef {import('./maplibre-gl.mjs').GeoJSONSource} GeoJSONSource */
/** @typedef {import('./maplibre-gl.mjs').ExpressionSpecification} ExpressionSpecification */
/** @typedef {import('./maplibre-gl.mjs').MapLibreEvent} MapLibreEvent */

const ZONE = '#1565c0';
const MOVING = '#e65100';
const SERVED = '#c2185b';
const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/**
 * Once the style is in, so sources and layers can be added.
 * @param {MapLibre} map
 */
function whenLoaded(map) {
  return /** @type {Promise<MapLibreEvent | void>} nothing, or the load event */ (
    new Promise((resolve) => (map.loaded() ? resolve() : map.once('load', resolve)))
  );
}

/**
 * A circle as a polygon of 64 sides: the points `radius` metres from the centre.
 * @param {number} lat
 * @param {number} lon
 * @param {number} radius
 * @returns {GeoJSON.Polygon}
 */
function circle(lat, lon, radius) {
  const d = radius / EARTH_RADIUS_M;
  const phi1 = lat * RAD;
  const lambda1 = lon * RAD;
  const ring = [];
  for (let i = 0; i <= 64; i += 1) {
    const bearing = (i % 64) * ((2 * Math.PI) / 64);
    const phi2 = Math.asin(Math.sin(phi1) * Math.cos(d) + Math.cos(phi1) * Math.sin(d) * Math.cos(bearing));
    const lambda2 =
      lambda1 +
      Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(phi1), Math.cos(d) - Math.sin(phi1) * Math.sin(phi2));
    ring.push([lambda2 / RAD, phi2 / RAD]);
  }
  return { type: 'Polygon', coordinates: [ring] };
}

/**
 * The zones as the form holds them now (those with a usable centre and radius).
 * @param {HTMLFormElement} form
 * @returns {GeoJSON.FeatureCollection}
 */
function zonesInForm(form) {
  /** @type {GeoJSON.Feature[]} */
  const features = [];
  for (const zone of form.querySelectorAll('[data-zone]')) {
    // Each `data-field` of a zone is an input.
    const value = (/** @type {string} */ field) =>
      Number(
        /** @type {HTMLInputElement | null} */ (zone.querySelector(`[data-field="${field}"]`))?.value || Number.NaN,
      );
    const [lat, lon, radius] = [value('lat'), value('lon'), value('radius_m')];
    if (![lat, lon, radius].every(Number.isFinite) || Math.abs(lat) > 85 || radius <= 0) continue;
    const moving = zone.querySelector('[data-move]')?.getAttribute('aria-pressed') === 'true';
    features.push({ type: 'Feature', properties: { moving }, geometry: circle(lat, lon, Math.min(radius, 20_000)) });
  }
  return { type: 'FeatureCollection', features };
}

/**
 * @param {HTMLElement} element
 * @param {HTMLFormElement} form
 */
async function zonesMap(element, form) {
  const handle = await createMap(element, optionsOf(element));
  if (!handle) return;
  const { map } = handle;
  await whenLoaded(map);
  map.addSource('zones', { type: 'geojson', data: zonesInForm(form) });
  /** @type {ExpressionSpecification} */
  const colour = ['case', ['get', 'moving'], MOVING, ZONE];
  map.addLayer({
    id: 'zones-fill',
    type: 'fill',
    source: 'zones',
    paint: { 'fill-color': colour, 'fill-opacity': 0.2 },
  });
  map.addLayer({ id: 'zones-line', type: 'line', source: 'zones', paint: { 'line-color': colour, 'line-width': 2 } });
  const draw = () => {
    const data = zonesInForm(form);
    /** @type {GeoJSONSource} */ (map.getSource('zones')).setData(data);
    element.dataset.zonesDrawn = String(data.features.length);
  };
  draw();
  form.addEventListener('zones-change', draw);
  map.getCanvas().style.cursor = 'crosshair';
  map.on('click', (event) => {
    const detail = { lat: event.lngLat.lat, lon: event.lngLat.lng };
    form.dispatchEvent(new CustomEvent('zone-place', { detail }));
  });
}

const fixed = (/** @type {number} */ value) => value.toFixed(5);

/** @typedef {{ lat: number, lon: number }} Place */

/**
 * Great-circle distance in metres.
 * @param {Place} a
 * @param {Place} b
 */
function distance(a, b) {
  const h =
    Math.sin(((b.lat - a.lat) * RAD) / 2) ** 2 +
    Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(((b.lon - a.lon) * RAD) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** @param {number} m */
function metres(m) {
  return m >= 1000 ? `${(m / 1000).toFixed(1)} km` : `${Math.round(m)} m`;
}

/**
 * @param {HTMLElement} element
 * @param {HTMLSelectElement} select the public precision, in metres
 * @param {HTMLElement} text
 */
async function precisionMap(element, select, text) {
  const handle = await createMap(element, optionsOf(element));
  if (!handle) return;
  const { map } = handle;
  await whenLoaded(map);
  const given = element.dataset.sample?.split(',').map(Number);
  let latest = given?.length === 2 && given.every(Number.isFinite);
  // While `latest` holds, `given` is its two numbers.
  /** @type {Place} */
  let sample = latest
    ? { lon: /** @type {[number, number]} */ (given)[0], lat: /** @type {[number, number]} */ (given)[1] }
    : { lon: map.getCenter().lng, lat: map.getCenter().lat };
  map.addSource('precision', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  /** @returns {ExpressionSpecification} */
  const is = (/** @type {string} */ kind) => ['==', ['get', 'kind'], kind];
  map.addLayer({
    id: 'precision-cell',
    type: 'fill',
    source: 'precision',
    filter: is('cell'),
    paint: { 'fill-color': SERVED, 'fill-opacity': 0.12 },
  });
  map.addLayer({
    id: 'precision-edges',
    type: 'line',
    source: 'precision',
    filter: ['any', is('cell'), is('link')],
    paint: { 'line-color': SERVED, 'line-width': 2, 'line-dasharray': [2, 2] },
  });
  map.addLayer({
    id: 'precision-points',
    type: 'circle',
    source: 'precision',
    filter: ['any', is('sample'), is('served')],
    paint: {
      'circle-color': ['case', is('served'), SERVED, '#1b1b1b'],
      'circle-radius': 6,
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': 2,
    },
  });

  const update = () => {
    const precision = Number(select.value);
    const served = roundPoint(sample.lat, sample.lon, precision);
    /** @returns {GeoJSON.Feature} */
    const feature = (/** @type {string} */ kind, /** @type {GeoJSON.Geometry} */ geometry) => ({
      type: 'Feature',
      properties: { kind },
      geometry,
    });
    const features = [feature('sample', { type: 'Point', coordinates: [sample.lon, sample.lat] })];
    const which = latest ? 'Your latest point' : 'This sample point';
    if (precision <= 0) {
      map.jumpTo({ center: [sample.lon, sample.lat], zoom: Math.max(map.getZoom(), 15) });
      text.textContent = `${which} (${fixed(sample.lat)}, ${fixed(sample.lon)}) is shown to strangers exactly where it is.`;
    } else {
      // The cell: every place that rounds to the same served place (src/privacy/grid.js).
      const latStep = gridLatStep(precision);
      const lonStep = gridLonStep(latStep, served.lat);
      const [south, north] = [served.lat - latStep / 2, served.lat + latStep / 2];
      const [west, east] = [served.lon - lonStep / 2, served.lon + lonStep / 2];
      features.push(
        feature('cell', {
          type: 'Polygon',
          coordinates: [
            [
              [west, south],
              [east, south],
              [east, north],
              [west, north],
              [west, south],
            ],
          ],
        }),
        feature('link', {
          type: 'LineString',
          coordinates: [
            [sample.lon, sample.lat],
            [served.lon, served.lat],
          ],
        }),
        feature('served', { type: 'Point', coordinates: [served.lon, served.lat] }),
      );
      map.fitBounds(
        [
          [Math.min(west, sample.lon), Math.min(south, sample.lat)],
          [Math.max(east, sample.lon), Math.max(north, sample.lat)],
        ],
        { padding: 40, maxZoom: 17, duration: 0 },
      );
      text.textContent =
        `${which} (black, ${fixed(sample.lat)}, ${fixed(sample.lon)}) is shown to strangers at ` +
        `${fixed(served.lat)}, ${fixed(served.lon)} (pink), ${metres(distance(sample, served))} away. ` +
        'Every place in the shaded cell is shown at that same spot.';
    }
    /** @type {GeoJSONSource} */ (map.getSource('precision')).setData({ type: 'FeatureCollection', features });
    element.dataset.served = `${served.lat},${served.lon}`;
  };
  update();
  select.addEventListener('change', update);
  map.on('click', (event) => {
    sample = { lat: event.lngLat.lat, lon: event.lngLat.lng };
    latest = false;
    update();
  });
}

const zones = document.getElementById('zones-map');
const zonesForm = document.getElementById('zones-form');
if (zones && zonesForm instanceof HTMLFormElement) void zonesMap(zones, zonesForm);
const precision = document.getElementById('precision-map');
const select = document.getElementById('precision');
const text = document.getElementById('precision-preview');
if (precision && select instanceof HTMLSelectElement && text) void precisionMap(precision, select, text);
