// The Trackers page (docs/trackers.md "The tracker page"): the person's tracker services with
// their ingest URLs, a form to add one and one to rotate a token, and, right after either, the
// token once with everything the phone needs: for OwnTracks a QR code of its configuration link
// (drawn here as SVG, so no script is needed), for Overland and GPSLogger the settings spelled out.
import QRCode from 'qrcode';
import { html, Html } from '../../lib/html.ts';
import type { Service } from '../../services/services.schemas.ts';

export const TRACKER_TYPES = ['owntracks', 'overland', 'gpslogger'] as const;
export type TrackerType = (typeof TRACKER_TYPES)[number];

const NAMES: Record<TrackerType, string> = { owntracks: 'OwnTracks', overland: 'Overland', gpslogger: 'GPSLogger' };

export function isTracker(service: Service): service is Service & { type: TrackerType; ingest: { url: string } } {
  return (TRACKER_TYPES as readonly string[]).includes(service.type) && service.ingest !== undefined;
}

/**
 * OwnTracks' remote configuration link (OwnTracks booklet, "Remote configuration"): the base64
 * of a `_type: configuration` message; mode 3 is HTTP, the token is the HTTP Basic password.
 */
export function owntracksLink(url: string, username: string, token: string): string {
  const configuration = { _type: 'configuration', mode: 3, url, auth: true, username, password: token };
  return `owntracks:///config?inline=${Buffer.from(JSON.stringify(configuration)).toString('base64')}`;
}

/** A QR code as an SVG element with a text alternative. */
async function qrSvg(text: string, label: string): Promise<Html> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  // The library's markup (numbers and paths only), labelled for screen readers.
  const labelled = svg.replace('<svg ', `<svg class="qr" role="img" aria-label="${label}" `);
  return new Html(labelled);
}

function setting(name: string, value: string): Html {
  return html`<dt>${name}</dt>
    <dd><code>${value}</code></dd>`;
}

/** What to set in the app, with the token of this moment. */
export async function setupHtml(
  tracker: Service & { type: TrackerType },
  url: string,
  token: string,
  username: string,
): Promise<Html> {
  if (tracker.type === 'owntracks') {
    const link = owntracksLink(url, username, token);
    return html`<h3>Set up OwnTracks with one scan</h3>
      <p>
        On the phone, scan this code with the camera (or open the link below on the phone): OwnTracks opens and takes
        the settings. Then check that <strong>Mode</strong> is HTTP under Settings, Connection.
      </p>
      ${await qrSvg(link, 'QR code with the OwnTracks settings for this tracker')}
      <p><a href="${link}">Open in OwnTracks</a> (on the phone)</p>
      <details>
        <summary>Or set it by hand</summary>
        <dl class="settings">
          ${setting('Mode', 'HTTP')} ${setting('URL', url)} ${setting('Identification: Username', username)}
          ${setting('Identification: Password', token)}
        </dl>
      </details>`;
  }
  if (tracker.type === 'overland') {
    return html`<h3>Set up Overland</h3>
      <p>In Overland's Settings, enter:</p>
      <dl class="settings">${setting('Receiver Endpoint', url)} ${setting('Access Token', token)}</dl>`;
  }
  return html`<h3>Set up GPSLogger for Android</h3>
    <p>Under Logging details, Log to custom URL, switch it on and enter:</p>
    <dl class="settings">
      ${setting('URL', `${url}?token=${token}`)} ${setting('HTTP Method', 'POST')} ${setting('HTTP Body', '%ALL')}
      ${setting('HTTP Headers', 'Content-Type: application/x-www-form-urlencoded')}
    </dl>`;
}

export interface TrackersView {
  trackers: Service[];
  csrf: string;
  /** Right after creating or rotating: the tracker, its token and how to set up the phone. */
  fresh?: { tracker: Service; token: string; setup: Html } | undefined;
  error?: string | undefined;
  form?: { type?: string; name?: string } | undefined;
}

function trackerHtml(tracker: Service, csrf: string): Html {
  const type = NAMES[tracker.type as TrackerType] ?? tracker.type;
  return html`<li class="entry">
    <h3>${tracker.name} <small>(${type})</small></h3>
    <dl class="settings">
      ${setting('Ingest URL', tracker.ingest?.url ?? '')}
      <dt>Status</dt>
      <dd>
        ${tracker.enabled ? '' : 'Disabled. '}${tracker.status === 'ok' ? 'Working' : `Error: ${tracker.last_error ?? ''}`}
      </dd>
    </dl>
    <form method="post" action="/app/trackers/${tracker.id}/token">
      <input type="hidden" name="csrf" value="${csrf}" />
      <button type="submit" aria-describedby="rotate-${tracker.id}">New token</button>
      <small id="rotate-${tracker.id}"
        >The old token stops working at once: set up the phone again with the new one.</small
      >
    </form>
  </li>`;
}

export function trackersBody(view: TrackersView): Html {
  const { trackers, csrf, fresh } = view;
  const list = trackers.filter(isTracker);
  return html`<h1>Trackers</h1>
    <p>
      A tracker is an app on a phone (OwnTracks, Overland, GPSLogger) that sends its location to Waypost. Each has its
      own address and token; the points it sends get your default scope for locations.
    </p>
    ${
      fresh
        ? html`<section class="secret" aria-labelledby="fresh">
            <h2 id="fresh">${fresh.tracker.name}: the token, shown once</h2>
            <p>Copy it now or scan the code: Waypost keeps only a fingerprint of it and cannot show it again.</p>
            <dl class="settings">${setting('Token', fresh.token)}</dl>
            ${fresh.setup}
          </section>`
        : ''
    }
    <section aria-labelledby="yours">
      <h2 id="yours">Your trackers</h2>
      ${
        list.length === 0
          ? html`<p class="empty">No trackers yet.</p>`
          : html`<ul class="trackers">
              ${list.map((tracker) => trackerHtml(tracker, csrf))}
            </ul>`
      }
    </section>
    <section aria-labelledby="add">
      <h2 id="add">Add a tracker</h2>
      ${view.error ? html`<p class="error" role="alert" id="add-error">${view.error}</p>` : ''}
      <form method="post" action="/app/trackers" class="controls">
        <input type="hidden" name="csrf" value="${csrf}" />
        <label
          >App
          <select name="type">
            ${TRACKER_TYPES.map(
              (type) =>
                html`<option value="${type}" ${view.form?.type === type ? 'selected' : ''}>${NAMES[type]}</option>`,
            )}
          </select>
        </label>
        <label
          >Name
          <input
            name="name"
            required
            maxlength="100"
            placeholder="My phone"
            value="${view.form?.name ?? ''}"
            ${view.error ? html`aria-invalid="true" aria-describedby="add-error"` : ''}
        /></label>
        <button type="submit">Add</button>
      </form>
    </section>`;
}
