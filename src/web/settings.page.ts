// Settings: default scopes, time zone, public location precision (with a map of what rounding
// does to a point), privacy zones (edited on a map, or by their fields alone), display name and
// bio; export and account deletion links. The maps: docs/maps.md "The Settings page".
import { html, type Html } from '../lib/html.ts';
import {
  ZONE_LAT_MAX,
  ZONE_NAME_MAX,
  ZONE_RADIUS_MAX_M,
  ZONE_RADIUS_MIN_M,
  ZONES_MAX,
  type Zone,
} from '../privacy/zones.ts';
import type { Scope } from '../items/items.schemas.ts';
import { latestOwnPoint } from '../locations/locations.logic.ts';
import { readSettingsObject } from '../settings/settings.api.ts';
import type { AppPage } from './page.ts';
import { mapFolderUrl } from './assets.ts';
import { mapPolicy } from './map/map-policy.ts';

const PRECISIONS = [0, 100, 500, 1000, 5000, 10000, 50000];
/** The radius a zone placed on the map starts with. */
const NEW_ZONE_RADIUS_M = 200;

function scopeChoice(kind: 'posts' | 'media' | 'locations', current: Scope): Html {
  return html`<label for="scope-${kind}">New ${kind}</label>
    <select id="scope-${kind}" name="default_scopes.${kind}">
      <option value="public" ${current === 'public' ? html`selected` : ''}>Public</option>
      <option value="private" ${current === 'private' ? html`selected` : ''}>Private</option>
    </select>`;
}

function precisionLabel(m: number): string {
  if (m === 0) return 'Exact (no rounding)';
  return m >= 1000 ? `${m / 1000} km grid` : `${m} m grid`;
}

/**
 * One zone's fields. The script renumbers ids and names (`privacy_zones.<i>.<field>`, the paths
 * the API's errors name) when zones are added or deleted; `data-field` says which field is which.
 */
function zoneFields(zone: Zone, i: number): Html {
  const id = (field: string) => `zone-${i}-${field}`;
  const name = (field: string) => `privacy_zones.${i}.${field}`;
  return html`<li class="zone" data-zone>
    <fieldset>
      <legend data-legend>${zone.name || `Zone ${i + 1}`}</legend>
      <label data-for="name" for="${id('name')}">Name</label>
      <input
        data-field="name"
        id="${id('name')}"
        name="${name('name')}"
        maxlength="${ZONE_NAME_MAX}"
        value="${zone.name}"
      />
      <div class="row">
        <div>
          <label data-for="lat" for="${id('lat')}">Latitude</label>
          <input
            data-field="lat"
            id="${id('lat')}"
            name="${name('lat')}"
            type="number"
            step="any"
            min="-${ZONE_LAT_MAX}"
            max="${ZONE_LAT_MAX}"
            value="${String(zone.lat)}"
          />
        </div>
        <div>
          <label data-for="lon" for="${id('lon')}">Longitude</label>
          <input
            data-field="lon"
            id="${id('lon')}"
            name="${name('lon')}"
            type="number"
            step="any"
            min="-180"
            max="180"
            value="${String(zone.lon)}"
          />
        </div>
      </div>
      <label data-for="radius_m" for="${id('radius_m')}">Radius in metres</label>
      <div class="radius">
        <input
          data-field="radius_range"
          id="${id('radius_range')}"
          type="range"
          min="${ZONE_RADIUS_MIN_M}"
          max="${ZONE_RADIUS_MAX_M}"
          step="10"
          value="${String(zone.radius_m)}"
          aria-label="Radius in metres (slider)"
        />
        <input
          data-field="radius_m"
          id="${id('radius_m')}"
          name="${name('radius_m')}"
          type="number"
          step="any"
          min="${ZONE_RADIUS_MIN_M}"
          max="${ZONE_RADIUS_MAX_M}"
          value="${String(zone.radius_m)}"
        />
      </div>
      <div class="zone-actions">
        <button type="button" class="secondary small" data-move aria-pressed="false">Move on the map</button>
        <button type="button" class="danger small" data-remove>Delete zone</button>
      </div>
    </fieldset>
  </li>`;
}

export const settingsPage: AppPage = {
  path: '/app/settings',
  title: 'Settings',
  narrow: true,
  styles: ['public.css'],
  scripts: ['settings.js'],
  render: async (ctx) => {
    // The maps need the map pages' policy (docs/maps.md); the page works without them.
    void ctx.reply.headers(mapPolicy(ctx.config));
    const s = await readSettingsObject(ctx.db, ctx.auth.userId);
    const zones = Intl.supportedValuesOf('timeZone');
    if (!zones.includes(s.timezone)) zones.unshift(s.timezone);
    const precisions = PRECISIONS.includes(s.public_location_precision_m)
      ? PRECISIONS
      : [...PRECISIONS, s.public_location_precision_m].sort((a, b) => a - b);
    // The person's own latest point, exact, as the precision preview's sample: this page is theirs alone.
    const latest = await latestOwnPoint(ctx.db, ctx.auth);
    const basemap = JSON.stringify(ctx.config.mapStyle);
    const first = s.privacy_zones[0];
    const zonesCentre = first ?? latest;
    const newZone: Zone = { name: '', lat: 0, lon: 0, radius_m: NEW_ZONE_RADIUS_M };
    const body = html`<h1>Settings</h1>
      <form data-api="POST /settings" data-done="Saved." class="card">
        <h2>Profile</h2>
        <label for="display_name">Display name</label>
        <input id="display_name" name="display_name" maxlength="100" value="${s.display_name}" />
        <label for="bio">Bio</label>
        <textarea id="bio" name="bio" maxlength="2000">${s.bio}</textarea>

        <h2>Time</h2>
        <label for="timezone">Time zone</label>
        <select id="timezone" name="timezone" aria-describedby="timezone-help">
          ${zones.map((z) => html`<option ${z === s.timezone ? html`selected` : ''}>${z}</option>`)}
        </select>
        <span class="help" id="timezone-help"
          >The timeline groups items by day in this zone, and every time on your pages is on its clock: your public page
          too, which names the zone.</span
        >

        <h2>Default scopes</h2>
        <p class="help">What a new item gets when the app that creates it does not say.</p>
        ${scopeChoice('posts', s.default_scopes.posts)} ${scopeChoice('media', s.default_scopes.media)}
        ${scopeChoice('locations', s.default_scopes.locations)}

        <h2>Public location precision</h2>
        <label for="precision">Round public places to</label>
        <select id="precision" name="public_location_precision_m" data-type="number" aria-describedby="precision-help">
          ${precisions.map(
            (m) =>
              html`<option value="${m}" ${m === s.public_location_precision_m ? html`selected` : ''}>
                ${precisionLabel(m)}
              </option>`,
          )}
        </select>
        <span class="help" id="precision-help">
          Strangers see your public points, and the places of public posts and media, moved to the nearest corner of a
          grid of this size: with 1 km, a photo taken in your garden shows a spot up to about 700 m away, shared by
          everything nearby, so your street cannot be read from it. You always see your exact places. Private items are
          never shown to strangers at all.
        </span>
        <div
          class="map map-settings"
          id="precision-map"
          role="region"
          aria-label="Map of how a point is rounded"
          aria-describedby="precision-preview"
          data-waypost-map
          data-map-manual
          data-basemap="${basemap}"
          ${latest ? html`data-sample="${latest.lon},${latest.lat}" data-center="${latest.lon},${latest.lat}"` : ''}
        ></div>
        <p class="help" id="precision-preview" aria-live="polite">
          ${
            latest
              ? 'Your latest point, and where strangers would see it, show on the map.'
              : 'A sample point, and where strangers would see it, show on the map. Click the map to move it.'
          }
        </p>
        <button type="submit">Save settings</button>
      </form>

      <h2 id="zones-title">Privacy zones</h2>
      <p class="help" id="zones-help">
        Strangers never see your public points inside a zone, and public posts and media there are shown without a
        place; you still see everything. A zone hides whole cells of a grid as wide as its radius (or as your precision,
        when coarser), so up to about 2.5 radii around its centre. Up to ${String(ZONES_MAX)} zones, radius
        ${String(ZONE_RADIUS_MIN_M)} to ${String(ZONE_RADIUS_MAX_M)} m.
      </p>
      <form id="zones-form" class="card" novalidate aria-labelledby="zones-title" data-max="${String(ZONES_MAX)}">
        <div
          class="map map-settings"
          id="zones-map"
          role="region"
          aria-label="Map of your privacy zones"
          aria-describedby="zones-map-help"
          data-waypost-map
          data-map-manual
          data-tiles="/locations/tiles/{z}/{x}/{y}.mvt"
          data-basemap="${basemap}"
          ${
            zonesCentre
              ? html`data-center="${zonesCentre.lon},${zonesCentre.lat}" data-zoom="${first ? '13' : '11'}"`
              : ''
          }
        ></div>
        <p class="help" id="zones-map-help">
          Your points are drawn under the zones. Click the map to place a new zone there; to move a zone, press its
          "Move on the map" button, then click its new centre. Or type the centre's latitude and longitude.
        </p>
        <ol class="zones" id="zone-list">
          ${s.privacy_zones.map((zone, i) => zoneFields(zone, i))}
        </ol>
        <p class="empty" id="zones-empty" ${s.privacy_zones.length > 0 ? 'hidden' : ''}>No zones yet.</p>
        <template id="zone-template">${zoneFields(newZone, 0)}</template>
        <p class="help" id="zones-live" aria-live="polite"></p>
        <button type="button" class="secondary" id="zone-add">Add a zone</button>
        <button type="submit">Save zones</button>
      </form>

      <h2>Password</h2>
      <p><a href="/account/password">Change your password</a></p>

      <h2>Your data</h2>
      <p>
        <a class="button secondary" href="/export" download>Export everything</a>
        <span class="help">One ZIP file with every post, file and location, private ones included.</span>
      </p>
      <p>
        <a href="/app/imports">Import a location history or restore an export</a>
        <span class="help">Google Takeout, GPX, KML, GeoJSON, CSV and more, or a Waypost export.</span>
      </p>
      <p><a href="/account/delete">Delete your account</a> and all its data.</p>`;
    const head = html`<link rel="stylesheet" href="${mapFolderUrl('maplibre-gl.css')}" />
      <script type="module" src="${mapFolderUrl('settings-map.js')}"></script>`;
    return { body, head };
  },
};
