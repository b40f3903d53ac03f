// The signed-in Map page (docs/maps.md "The Map page"): the person's location history from the
// owner's vector tiles, narrowed to a date range, with one day's track, and a switch to "what
// strangers see" (the public tiles: public points at the public precision). A plain GET form:
// it works without the script, which only draws and fetches the day's track.
import { html, type Html } from '../../lib/html.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { cursorsFor } from '../../core/cursors.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import type { AppPage, Viewer } from '../page.ts';
import { mapFolderUrl } from '../assets.ts';
import { dayBounds, dayHeading } from '../time.ts';
import { rangeControls, summarize, type RangeSummary } from './map-range.ts';
import { mapPolicy } from './map-policy.ts';
import { latestPlace, latestPublicPlace } from './latest-place.ts';

export interface MapQuery {
  from?: string | undefined;
  until?: string | undefined;
  day?: string | undefined;
  view?: string | undefined;
  draw?: string | undefined;
}

/** How the points are drawn: the form's radio buttons, switched by map-page.js without a reload. */
const DRAWS = { points: 'Points', lines: 'Lines', heat: 'Heatmap' } as const;
type Draw = keyof typeof DRAWS;

export interface MapView {
  body: Html;
  head: Html;
  status: number;
}

/** A field's value when it is a plain string (a repeated parameter is not). */
function field(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

async function mapView(
  db: Db,
  config: Config,
  viewer: Viewer,
  request: { url: string; query: unknown },
): Promise<MapView> {
  const raw = request.query as Record<string, unknown>;
  const query = {
    from: field(raw.from),
    until: field(raw.until),
    day: field(raw.day),
    strangers: field(raw.view) === 'public',
    draw: (Object.hasOwn(DRAWS, field(raw.draw)) ? field(raw.draw) : 'points') as Draw,
  };
  const { timezone } = await getSettings(db, viewer.id);
  const errors: Record<string, string> = {};
  const since = query.from ? dayBounds(query.from, timezone)?.start : undefined;
  // The range ends at the end of its last day.
  const until = query.until ? dayBounds(query.until, timezone)?.end : undefined;
  const dayRange = query.day ? dayBounds(query.day, timezone) : undefined;
  if (query.from && since === undefined) errors.from = 'Give a date (YYYY-MM-DD).';
  if (query.until && until === undefined) errors.until = 'Give a date (YYYY-MM-DD).';
  if (query.day && dayRange === undefined) errors.day = 'Give a date (YYYY-MM-DD).';
  if (since !== undefined && until !== undefined && until <= since) errors.until = 'The range ends before it starts.';
  const failed = Object.keys(errors).length > 0;

  const range = new URLSearchParams();
  if (!failed && since !== undefined) range.set('since_time', String(since / 1000));
  if (!failed && until !== undefined) range.set('until_time', String(until / 1000));
  const suffix = range.size > 0 ? `?${range.toString()}` : '';
  const name = encodeURIComponent(viewer.username);
  const tiles = query.strangers
    ? `/locations/public/${name}/tiles/{z}/{x}/{y}.mvt${suffix}`
    : `/locations/tiles/{z}/{x}/{y}.mvt${suffix}`;
  // Only the first point of a page is read here, so its cursor is never handed out.
  const cursors = cursorsFor(config.secretKey);
  const center = query.strangers
    ? await latestPublicPlace(db, viewer, cursors)
    : await latestPlace(db, viewer, cursors);
  // The zoom to open at: a link may ask for one (0 to 18), at the latest point; else the map is
  // fitted to the points it shows.
  const asked = Number(field(raw.zoom));
  const zoomAsked = field(raw.zoom) !== '' && Number.isInteger(asked) && asked >= 0 && asked <= 18;
  const zoom = zoomAsked ? asked : 11;
  const track = query.day && !errors.day && !query.strangers ? `/locations/tracks/${query.day}?zoom=16` : undefined;

  // The owner's count and box of what the map shows (the strangers' view is the public tiles
  // alone, counted on screen by the map): the API's statistics over the range.
  const summary: RangeSummary | undefined =
    query.strangers || failed ? undefined : await summarize(db, viewer.id, { since, until });
  const bounds = !zoomAsked && summary?.bbox ? summary.bbox.map((v) => Number(v.toFixed(6))).join(',') : undefined;
  // What a delete takes: the range asked for, else the day shown.
  const deletable =
    since !== undefined && until !== undefined
      ? { since, until, from: query.from, to: query.until }
      : dayRange
        ? { since: dayRange.start, until: dayRange.end, from: query.day, to: query.day }
        : undefined;
  const deleteSummary =
    summary && deletable && (since === undefined || until === undefined)
      ? await summarize(db, viewer.id, deletable)
      : summary;
  const here = `/app/map${request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''}`;
  const link = (day: string) => {
    const params = new URLSearchParams({ from: query.from, until: query.until, day });
    if (query.draw !== 'points') params.set('draw', query.draw);
    return `/app/map?${params.toString()}`;
  };
  const between =
    query.from && query.from === query.until
      ? ` on ${dayHeading(query.from)}`
      : query.from && query.until
        ? ` from ${dayHeading(query.from)} to ${dayHeading(query.until)}`
        : query.from
          ? ` from ${dayHeading(query.from)} on`
          : query.until
            ? ` until ${dayHeading(query.until)}`
            : '';
  const shown = summary
    ? summary.points === 0
      ? `No points${between}.`
      : `${summary.points.toLocaleString('en-GB')} point${summary.points === 1 ? '' : 's'}${between}, public and private, at their exact places; the map is fitted to them. Times are in ${timezone}.`
    : '';

  const invalid = (name: string) => (errors[name] ? html`aria-invalid="true" aria-describedby="${name}-error"` : '');
  const error = (name: string) =>
    errors[name] ? html`<span class="error" id="${name}-error">${errors[name]}</span>` : '';
  const body = html`<h1>Map</h1>
    <form id="map-form" class="controls" method="get" action="/app/map">
      <label>From <input type="date" name="from" value="${query.from}" ${invalid('from')} />${error('from')}</label>
      <label
        >Until <input type="date" name="until" value="${query.until}" ${invalid('until')} />${error('until')}</label
      >
      <label
        >Track of the day <input type="date" name="day" value="${query.day}" ${invalid('day')} />${error('day')}</label
      >
      <fieldset class="draw">
        <legend>Draw as</legend>
        ${Object.entries(DRAWS).map(
          ([value, label]) =>
            html`<label class="inline"
              ><input type="radio" name="draw" value="${value}" ${query.draw === value ? html`checked` : ''} />
              ${label}</label
            >`,
        )}
      </fieldset>
      <label class="check"
        ><input type="checkbox" name="view" value="public" ${query.strangers ? 'checked' : ''} /> What strangers
        see</label
      >
      <button type="submit">Show</button>
    </form>
    <p id="map-count" data-points="${summary?.points ?? ''}">
      ${query.strangers ? 'What strangers see: your public points only, at your public precision (Settings).' : shown}
    </p>
    <p id="map-status" role="status"></p>
    ${
      center
        ? ''
        : html`<p class="empty">
            ${
              query.strangers
                ? html`You have no public points yet: a point is public when it is written so (a tracker's or an
                    import's choice, or the default scope for new points in <a href="/app/settings">Settings</a>).`
                : html`No points yet: <a href="/app/trackers">add a tracker</a> or
                    <a href="/app/imports">import a history</a>.`
            }
          </p>`
    }
    <div
      class="map map-large"
      role="region"
      aria-label="${query.strangers ? 'Map of what strangers see' : 'Map of your location history'}"
      data-waypost-map
      data-map-manual
      data-view="${query.strangers ? 'public' : 'owner'}"
      data-draw="${query.draw}"
      data-tiles="${tiles}"
      data-basemap="${JSON.stringify(config.mapStyle)}"
      data-zone="${timezone}"
      ${center ? html`data-center="${center.lon},${center.lat}" data-zoom="${zoom}"` : ''}
      ${bounds ? html`data-bounds="${bounds}"` : ''}
      ${track ? html`data-track="${track}"` : ''}
    ></div>
    ${query.strangers ? '' : html`<p class="help">Click a point for its time and accuracy, and to delete it.</p>`}
    ${
      deletable && deleteSummary && !query.strangers
        ? rangeControls({ summary: deleteSummary, ...deletable, here, dayLink: link })
        : ''
    }`;
  const head = html`<link rel="stylesheet" href="${mapFolderUrl('maplibre-gl.css')}" />
    <script type="module" src="${mapFolderUrl('map-page.js')}"></script>`;
  return { body, head, status: failed ? 400 : 200 };
}

/** The page in the web app (src/web/registry.ts). The map's policy lets the basemap in. */
export const mapPage: AppPage = {
  path: '/app/map',
  title: 'Map',
  styles: ['public.css'],
  render: async ({ db, config, viewer, request, reply }) => {
    void reply.headers(mapPolicy(config));
    return mapView(db, config, viewer, request);
  },
};
