// @ts-check
// The Settings page's privacy zones (docs/maps.md "The Settings page"): a list of fieldsets,
// one per zone, that works by keyboard alone; the map (src/web/map/settings-map.js) draws
// them, and a click on it asks this script to place a zone ("zone-place" on the form). Saved as
// the whole list through POST /settings; the server's errors show beside the field they name.
import { ApiError, announce, api, clearErrors, showError } from './app.js';

// The zone form's elements (src/web/settings.page.ts), typed as there: the functions below run
// only once the check at the end has found them.
const form = /** @type {HTMLFormElement} */ (document.getElementById('zones-form'));
const list = /** @type {HTMLOListElement} */ (document.getElementById('zone-list'));
const template = /** @type {HTMLTemplateElement} */ (document.getElementById('zone-template'));
const empty = /** @type {HTMLElement} */ (document.getElementById('zones-empty'));
const live = /** @type {HTMLElement} */ (document.getElementById('zones-live'));
const addButton = /** @type {HTMLButtonElement} */ (document.getElementById('zone-add'));
const max = Number(form?.dataset.max ?? 20);

const zones = () => [...list.querySelectorAll('[data-zone]')];
/** A zone's field: each `data-field` of a zone is an input. */
const input = (/** @type {Element} */ zone, /** @type {string} */ field) =>
  /** @type {HTMLInputElement} */ (zone.querySelector(`[data-field="${field}"]`));
const say = (/** @type {string} */ text) => (live.textContent = text);

/** Tells the map what to draw. */
function changed() {
  form.dispatchEvent(new CustomEvent('zones-change'));
}

/** Ids, names (the API's paths: `privacy_zones.<i>.<field>`) and legends after a change of the list. */
function renumber() {
  zones().forEach((zone, i) => {
    for (const field of /** @type {NodeListOf<HTMLInputElement>} */ (zone.querySelectorAll('[data-field]'))) {
      field.id = `zone-${i}-${field.dataset.field}`;
      if (field.dataset.field !== 'radius_range') field.name = `privacy_zones.${i}.${field.dataset.field}`;
    }
    for (const label of /** @type {NodeListOf<HTMLLabelElement>} */ (zone.querySelectorAll('[data-for]')))
      label.htmlFor = `zone-${i}-${label.dataset.for}`;
    legend(zone, i);
  });
  empty.hidden = zones().length > 0;
  addButton.disabled = zones().length >= max;
  changed();
}

/**
 * @param {Element} zone
 * @param {number} [i] its place in the list
 */
function legend(zone, i = zones().indexOf(zone)) {
  const name = input(zone, 'name').value.trim();
  /** @type {Element} */ (zone.querySelector('[data-legend]')).textContent = name || `Zone ${i + 1}`;
}

/** Six decimals: about 10 cm, as precise as a click can mean. */
const coordinate = (/** @type {number} */ value) => String(Math.round(value * 1e6) / 1e6);

/** @param {{ lat: number, lon: number } | undefined} place where the map was clicked, if it was */
function addZone(place) {
  if (zones().length >= max) {
    say(`At most ${max} zones.`);
    return undefined;
  }
  // The template holds one zone's fieldset.
  const zone = /** @type {Element} */ (/** @type {Element} */ (template.content.firstElementChild).cloneNode(true));
  list.append(zone);
  input(zone, 'name').value = `Zone ${zones().length}`;
  input(zone, 'lat').value = place ? coordinate(place.lat) : '';
  input(zone, 'lon').value = place ? coordinate(place.lon) : '';
  renumber();
  const name = input(zone, 'name');
  name.focus();
  name.select();
  say(
    place
      ? `Zone ${zones().length} placed on the map. Name it, set its radius, then save the zones.`
      : `Zone ${zones().length} added. Give its centre, then save the zones.`,
  );
  return zone;
}

function moving() {
  return zones().find((zone) => zone.querySelector('[data-move]')?.getAttribute('aria-pressed') === 'true');
}

function stopMoving() {
  for (const button of list.querySelectorAll('[data-move][aria-pressed="true"]')) {
    button.setAttribute('aria-pressed', 'false');
  }
}

if (form && list && template) {
  // A click on the map: the zone waiting to move goes there, else a new zone starts there.
  form.addEventListener('zone-place', (event) => {
    if (!(event instanceof CustomEvent)) return;
    /** @type {{ lat: number, lon: number }} what src/web/map/settings-map.js sends */
    const place = event.detail;
    const zone = moving();
    if (!zone) {
      addZone(place);
      return;
    }
    input(zone, 'lat').value = coordinate(place.lat);
    input(zone, 'lon').value = coordinate(place.lon);
    stopMoving();
    changed();
    say(`${zone.querySelector('[data-legend]')?.textContent} moved. Save the zones to keep it.`);
  });

  addButton.addEventListener('click', () => addZone(undefined));

  list.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button') : null;
    const zone = button?.closest('[data-zone]');
    if (!button || !zone) return;
    if (button.matches('[data-remove]')) {
      const title = zone.querySelector('[data-legend]')?.textContent;
      const next = zone.nextElementSibling ?? zone.previousElementSibling;
      zone.remove();
      renumber();
      (next ? input(next, 'name') : addButton).focus();
      say(`${title} deleted. Save the zones to keep the change.`);
    } else if (button.matches('[data-move]')) {
      const pressed = button.getAttribute('aria-pressed') === 'true';
      stopMoving();
      button.setAttribute('aria-pressed', String(!pressed));
      changed();
      say(pressed ? 'Not moving.' : 'Click the map where the zone should be.');
    }
  });

  list.addEventListener('input', (event) => {
    const field = event.target;
    if (!(field instanceof HTMLInputElement)) return;
    const zone = field.closest?.('[data-zone]');
    if (!zone) return;
    // The slider and the number say the same radius.
    if (field.dataset.field === 'radius_range') input(zone, 'radius_m').value = field.value;
    if (field.dataset.field === 'radius_m' && field.value !== '') input(zone, 'radius_range').value = field.value;
    if (field.dataset.field === 'name') legend(zone);
    changed();
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type="submit"]'));
    button.disabled = true;
    clearErrors(form);
    const status = form.querySelector('.notice[role="status"]');
    if (status) status.textContent = '';
    // An empty field goes as null: the server names it, beside the field.
    const number = (/** @type {HTMLInputElement} */ field) => (field.value.trim() === '' ? null : Number(field.value));
    const body = {
      privacy_zones: zones().map((zone) => ({
        name: input(zone, 'name').value,
        lat: number(input(zone, 'lat')),
        lon: number(input(zone, 'lon')),
        radius_m: number(input(zone, 'radius_m')),
      })),
    };
    try {
      await api('POST', '/settings', body);
      stopMoving();
      changed();
      announce(form, 'Zones saved.');
    } catch (error) {
      // The API names `body/privacy_zones/<i>/<field>`; the fields are named without `body`.
      const problem = error instanceof ApiError ? error.problem : undefined;
      const errors = (problem?.errors ?? []).map((item) => ({
        ...item,
        path: String(item.path ?? '').replace(/^\/?body\//, ''),
      }));
      showError(
        form,
        problem && error instanceof ApiError ? new ApiError(error.status, { ...problem, errors }) : error,
      );
    } finally {
      button.disabled = false;
    }
  });
}
