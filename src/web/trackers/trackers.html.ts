// The Trackers page (docs/trackers.md "The tracker page"): the person's tracker services with
// their ingest URLs, a form to add one and one to rotate a token, and, right after either, the
// token once with everything the phone needs: for OwnTracks a QR code of its configuration link
// (drawn here as SVG, so no script is needed), for Overland and GPSLogger the settings spelled out.
import QRCode from 'qrcode';
import { html, Html } from '../../lib/html.ts';
import type { Service } from '../../services/services.schemas.ts';
import type { TrackerActivity } from '../../services/trackers.logic.ts';
import { clockOf, dayOf } from '../time.ts';

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

/** A value with a Copy button (src/web/assets/app.js; the button shows once the script runs). */
function copyable(name: string, value: string, id: string): Html {
  return html`<dt>${name}</dt>
    <dd class="copyable">
      <code id="${id}">${value}</code>
      <button type="button" class="secondary small" data-copy-from="${id}" data-what="${name}" hidden>
        Copy <span class="visually-hidden">${name.toLowerCase()}</span>
      </button>
      <span class="copy-status help" role="status"></span>
    </dd>`;
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
  /** Each tracker's traffic, by id (src/services/trackers.logic.ts). */
  activity: ReadonlyMap<string, TrackerActivity>;
  /** The owner's time zone, for the times shown. */
  timeZone: string;
  /** Now (ms): "Working" means points arrived within WORKING_WITHIN_MS of it. */
  now: number;
  /** The address phones are given, when it is a loopback one no phone can reach. */
  unreachable?: string | undefined;
  /** Right after creating or rotating: the tracker, its token and how to set up the phone. */
  fresh?: { tracker: Service; token: string; setup: Html } | undefined;
  /** A confirmation asked before acting: a new token, or deleting. */
  confirm?: { tracker: Service; action: 'token' | 'delete' } | undefined;
  notice?: string | undefined;
  error?: string | undefined;
  form?: { type?: string; name?: string } | undefined;
}

/** Points within this long make a tracker "Working"; older, it is "Quiet". */
export const WORKING_WITHIN_MS = 60 * 60 * 1000;

function when(ms: number, timeZone: string): string {
  return `${dayOf(ms, timeZone)} ${clockOf(ms, timeZone)}`;
}

/** The one true sentence about a tracker's state, and its tone. */
export function trackerStatus(
  tracker: Service,
  activity: TrackerActivity | undefined,
  now: number,
  timeZone: string,
): { text: string; tone: 'ok' | 'warn' | 'error' | 'muted' } {
  const last = activity?.lastPointAt ?? null;
  if (!tracker.enabled) {
    return { text: 'Switched off: the phone’s points are refused until you switch it on.', tone: 'warn' };
  }
  const refused = activity?.refusedAt ?? null;
  if (activity?.refusedReason === 'replaced_token' && refused !== null && refused > (last ?? 0)) {
    return {
      text: `Refused: the phone still sends a token that was replaced (last at ${when(refused, timeZone)}). Set the phone up again with the new token.`,
      tone: 'error',
    };
  }
  if (last === null) return { text: 'Waiting for the first point.', tone: 'muted' };
  if (tracker.status === 'error') return { text: `Points left out: ${tracker.last_error ?? ''}`, tone: 'error' };
  if (now - last <= WORKING_WITHIN_MS) return { text: 'Working.', tone: 'ok' };
  return { text: `Quiet: no point since ${when(last, timeZone)}.`, tone: 'warn' };
}

function trackerHtml(tracker: Service, view: TrackersView): Html {
  const { csrf, timeZone } = view;
  const activity = view.activity.get(tracker.id);
  const type = NAMES[tracker.type as TrackerType] ?? tracker.type;
  const status = trackerStatus(tracker, activity, view.now, timeZone);
  const last = activity?.lastPointAt ?? null;
  return html`<li class="entry" data-tracker="${tracker.id}">
    <h3>${tracker.name} <small>(${type})</small></h3>
    <dl class="settings">
      ${copyable('Ingest URL', tracker.ingest?.url ?? '', `url-${tracker.id}`)}
      <dt>Status</dt>
      <dd class="tracker-status ${status.tone}" data-status>${status.text}</dd>
      <dt>Last point received</dt>
      <dd data-last>${last === null ? 'None yet' : `${when(last, timeZone)} (${timeZone})`}</dd>
      <dt>Points today</dt>
      <dd data-today>${activity?.pointsToday ?? 0}</dd>
    </dl>
    <details class="tracker-edit">
      <summary>Rename or switch off</summary>
      <form method="post" action="/app/trackers/${tracker.id}" class="controls">
        <input type="hidden" name="csrf" value="${csrf}" />
        <label
          >Name
          <input name="name" required maxlength="100" value="${tracker.name}" />
        </label>
        <label class="check"
          ><input type="checkbox" name="enabled" value="on" ${tracker.enabled ? html`checked` : ''} /> Switched on (off:
          its points are refused)</label
        >
        <button type="submit">Save ${tracker.name}</button>
      </form>
    </details>
    <div class="row">
      <a class="button secondary" href="/app/trackers/${tracker.id}/token">New token…</a>
      <a class="button danger" href="/app/trackers/${tracker.id}/delete">Delete…</a>
    </div>
  </li>`;
}

function confirmHtml(view: TrackersView): Html {
  const { tracker, action } = view.confirm!;
  const token = action === 'token';
  return html`<section class="secret" aria-labelledby="confirm">
    <h2 id="confirm">${token ? `A new token for ${tracker.name}?` : `Delete ${tracker.name}?`}</h2>
    <p>
      ${
        token
          ? 'The old token stops working at once: the phone’s points are refused until you set it up again with the new one.'
          : 'The tracker and its address go for good; the points it already sent stay in your history. The phone’s points are refused from now on.'
      }
    </p>
    <form method="post" action="/app/trackers/${tracker.id}/${action}" class="row">
      <input type="hidden" name="csrf" value="${view.csrf}" />
      <button type="submit" class="${token ? '' : 'danger'}">
        ${token ? 'Make a new token' : 'Delete the tracker'}
      </button>
      <a href="/app/trackers">Cancel</a>
    </form>
  </section>`;
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
      view.unreachable
        ? html`<div class="warning" role="note">
            <p>
              <strong>A phone cannot reach these addresses.</strong> They point at <code>${view.unreachable}</code>, an
              address of this computer itself: <code>WAYPOST_BASE_URL</code> is not set (its default is
              <code>http://localhost:&lt;port&gt;</code>) or names this computer. Set it to the address phones reach
              this server at (for example <code>https://waypost.example.org</code>, or
              <code>http://192.168.1.20:8080</code> on your home network) and start the server again; then the QR codes
              and ingest URLs use it.
            </p>
          </div>`
        : ''
    }
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
    ${view.confirm ? confirmHtml(view) : ''}
    ${
      fresh
        ? html`<section class="secret" aria-labelledby="fresh">
            <h2 id="fresh">${fresh.tracker.name}: the token, shown once</h2>
            <p>Copy it now or scan the code: Waypost keeps only a fingerprint of it and cannot show it again.</p>
            <dl class="settings">${copyable('Token', fresh.token, 'fresh-token')}</dl>
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
              ${list.map((tracker) => trackerHtml(tracker, view))}
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
