// Imports: bring a location history file in, or restore a Waypost export, from the browser
// (docs/imports.md "In the web app"). The page lists the person's imports as GET /imports does,
// read through the same function; src/web/assets/imports.js uploads with progress through
// POST /imports, follows each running import by polling GET /imports/<id>, and cancels or
// undoes one with DELETE /imports/<id> (the delete buttons of app.js).
import { html, type Html } from '../lib/html.ts';
import { IMPORT_FORMATS, listImports } from '../imports/imports.logic.ts';
import type { Import } from '../imports/imports.schemas.ts';
import { EXPORT_FORMAT } from '../archive/format.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { deleteButton } from './buttons.html.ts';
import type { AppPage } from './page.ts';

/** What each format is, in the words of the people who have such a file. */
export const FORMAT_LABELS: Record<string, string> = {
  'google-records': 'Google Takeout Records.json',
  'google-semantic': 'Google Takeout Semantic Location History',
  'google-timeline': 'Google Maps Timeline export (phone)',
  gpx: 'GPX track',
  kml: 'KML',
  kmz: 'KMZ',
  geojson: 'GeoJSON',
  csv: 'CSV',
  owntracks: 'OwnTracks Recorder (.rec)',
  tcx: 'Garmin TCX',
  zip: 'Zip of any of these (a Google Takeout)',
  [EXPORT_FORMAT]: 'Waypost export (restore)',
};

const STATUS_LABELS: Record<Import['status'], string> = {
  queued: 'Waiting to start',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Being undone',
};

const RESTORED_KINDS: Record<keyof NonNullable<Import['items']>, string> = {
  settings: 'Settings',
  services: 'Services',
  groups: 'Groups',
  views: 'Views',
  places: 'Places',
  visit_corrections: 'Corrections of visits',
  media: 'Media',
  posts: 'Posts',
};

/** "4 GiB", "12.5 MB": sizes as people read them. */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} bytes`;
}

/** An instant in the person's zone, as imports.js writes it too. */
function when(seconds: number, timeZone: string): string {
  return new Date(seconds * 1000).toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
}

const number = (n: number) => n.toLocaleString('en-GB');
const plural = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`;

/** What the Cancel or Undo button asks before it deletes (imports.js writes the same). */
export function undoQuestion(imp: Import): string {
  const points = plural(imp.points_stored, 'point', 'points');
  if (imp.status === 'queued' || imp.status === 'running') {
    return `Cancel the import of ${imp.filename}? The ${points} it stored so far will be deleted.`;
  }
  const restore = imp.format === EXPORT_FORMAT ? ' Restored posts, media, services and settings stay.' : '';
  return `Undo the import of ${imp.filename}? The ${points} it stored will be deleted; points that were already here stay.${restore}`;
}

/** One import as a card; imports.js renders the same markup as it polls. */
export function importCard(imp: Import, timeZone: string): Html {
  const running = imp.status === 'queued' || imp.status === 'running';
  const counters: [string, number][] = [
    ['Points stored', imp.points_stored],
    ['Duplicates', imp.duplicates],
    ['Skipped', imp.skipped],
    ['Problems', imp.errors.length],
  ];
  return html`<li class="card import" data-item data-import="${imp.id}" data-status="${imp.status}">
    <h3>${imp.filename}</h3>
    <p class="meta">
      ${FORMAT_LABELS[imp.format] ?? imp.format} · ${byteSize(imp.size)} · uploaded ${when(imp.created_at, timeZone)}
    </p>
    <p>
      <span class="import-status status-${imp.status}">${STATUS_LABELS[imp.status]}</span>
      ${imp.finished_at !== null ? html`<span class="meta"> at ${when(imp.finished_at, timeZone)}</span>` : ''}
    </p>
    ${
      running
        ? html`<progress max="1" value="${imp.progress}" aria-label="Progress of ${imp.filename}"></progress>`
        : ''
    }
    <dl class="counters">
      ${counters.map(
        ([label, value]) =>
          html`<div>
            <dt>${label}</dt>
            <dd>${number(value)}</dd>
          </div>`,
      )}
    </dl>
    ${
      imp.items
        ? html`<p class="help">Restored:</p>
            <ul class="restored">
              ${Object.entries(RESTORED_KINDS).map(([key, label]) => {
                const counts = imp.items![key as keyof typeof RESTORED_KINDS];
                return html`<li>
                  ${label}: ${number(counts.stored)} restored, ${number(counts.duplicates)} already here,
                  ${number(counts.skipped)} not restored
                </li>`;
              })}
            </ul>`
        : ''
    }
    ${
      imp.errors.length > 0
        ? html`<details class="import-errors">
            <summary>
              ${plural(imp.errors.length, 'problem', 'problems')}${imp.errors.length >= 100 ? ' (the first 100)' : ''}
            </summary>
            <ol>
              ${imp.errors.map((e) => html`<li><strong>${e.where}</strong>: ${e.message}</li>`)}
            </ol>
          </details>`
        : ''
    }
    ${
      imp.status === 'cancelled'
        ? ''
        : deleteButton({
            path: `/imports/${imp.id}`,
            confirm: undoQuestion(imp),
            text: running ? 'Cancel' : 'Undo',
            what: `the import of ${imp.filename}`,
          })
    }
  </li>`;
}

export const importsPage: AppPage = {
  path: '/app/imports',
  title: 'Imports',
  narrow: true,
  scripts: ['imports.js'],
  render: async ({ db, config, auth }) => {
    const [imports, settings] = await Promise.all([listImports(db, auth.userId), getSettings(db, auth.userId)]);
    const zone = settings.timezone;
    const scope = settings.defaultScopes.locations;
    const limit = config.importLimit;
    const body = html`<h1>Imports</h1>
      <p>
        Bring in a location history you kept elsewhere, or restore a Waypost export. The file is read in the background:
        you can leave this page and come back. An import can be undone: its points are deleted again.
      </p>
      <form id="import-form" novalidate data-limit="${limit}" data-zone="${zone}">
        <div class="drop-zone" id="drop-zone">
          <label for="import-file">Choose a file, or drop it here</label>
          <input id="import-file" name="file" type="file" required aria-describedby="import-file-help" />
          <span class="help" id="import-file-help"
            >Up to ${byteSize(limit)}. Google Takeout (Records.json, Semantic Location History, the Timeline export of
            the phone app, or the whole Takeout zip), GPX, KML, KMZ, GeoJSON, CSV, OwnTracks, TCX, or a Waypost
            export.</span
          >
        </div>
        <label for="import-format">Format</label>
        <select id="import-format" name="format">
          <option value="">Detect from the content</option>
          ${IMPORT_FORMATS.map((f) => html`<option value="${f}">${FORMAT_LABELS[f] ?? f}</option>`)}
        </select>
        <fieldset>
          <legend>Who can see the points</legend>
          <label class="inline"
            ><input type="radio" name="scope" value="private" ${scope === 'private' ? html`checked` : ''} /> Private:
            only you</label
          >
          <label class="inline"
            ><input type="radio" name="scope" value="public" ${scope === 'public' ? html`checked` : ''} /> Public: on
            your profile's map, at your public precision</label
          >
        </fieldset>
        <button type="submit" id="import-button">Upload and import</button>
        <div id="upload" hidden>
          <progress id="upload-progress" max="1" value="0" aria-label="Upload"></progress>
          <p id="upload-status" role="status"></p>
          <button type="button" class="secondary" id="upload-cancel">Stop the upload</button>
          <button type="button" id="upload-retry" hidden>Try again</button>
        </div>
      </form>

      <section aria-labelledby="restore-heading">
        <h2 id="restore-heading">Restoring an export</h2>
        <p>
          A Waypost export (the zip from <a href="/account">your account's export</a>, from this server or another)
          chosen above is restored into this account: your settings and profile (replacing the current ones), services
          (switched off and without their passwords and tokens, which you enter again on
          <a href="/app/services">Services</a>), service groups, views, places and your corrections of visits, media
          with their files, posts, and every location point. What is already here is not stored twice. Undo deletes only
          the restored points; the other things stay and are deleted one by one.
        </p>
      </section>

      <section aria-labelledby="imports-heading">
        <h2 id="imports-heading">Your imports</h2>
        <p class="help" id="imports-empty" ${imports.length > 0 ? html`hidden` : ''}>No imports yet.</p>
        <ul class="plain-list" id="imports" aria-labelledby="imports-heading">
          ${imports.map((imp) => importCard(imp, zone))}
        </ul>
        <p>See what came in on the <a href="/app/map">Map</a>.</p>
      </section>`;
    return { body };
  },
};
