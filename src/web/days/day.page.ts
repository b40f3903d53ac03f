// One day as the person lived it (`/app/days/YYYY-MM-DD`, docs/design.md "The web app"): the
// stays and trips of that day in their time zone, with the day's posts, photos and videos woven
// in at their times, and the day's track on a small map. From a stay, the person names its place
// (POST /places/<id>) or corrects the stay (POST /locations/visits/<id>: another place, split,
// one with the next, no stay) in its panel (correct.html.ts).
import { badRequest } from '../../core/errors.ts';
import { html, type Html } from '../../lib/html.ts';
import { withinTimeLimit } from '../../lib/time.ts';
import { listPlaces } from '../../places/places.logic.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import type { TripJson, VisitJson } from '../../visits/visits.schemas.ts';
import { mapFolderUrl } from '../assets.ts';
import { entryExtras, mediumEntry, postEntry, type EntryExtras } from '../entries.html.ts';
import { mapPolicy } from '../map/map-policy.ts';
import { ownItemsBetween, type Entry } from '../own-items.ts';
import type { AppPage, PageContext } from '../page.ts';
import { addDays, dayBounds, dayHeading } from '../time.ts';
import {
  distanceText,
  durationText,
  MODE_LABEL,
  placeTitle,
  placeWhere,
  shortDay,
  spansLine,
  spanTimes,
} from './days.html.ts';
import { correctPanel, type CorrectView } from './correct.html.ts';
import { refreshSpans, spansBetween } from './spans.ts';

type Step =
  | { kind: 'visit'; ms: number; span: VisitJson }
  | { kind: 'trip'; ms: number; span: TripJson }
  | { kind: 'item'; ms: number; entry: Entry };

interface DayView extends CorrectView {
  /** Every stay the trips may name, those just outside the day included. */
  visits: ReadonlyMap<string, VisitJson>;
  /** The stay after each of the day's stays, that day, for "One stay with the next". */
  next: ReadonlyMap<string, VisitJson>;
  extras: EntryExtras;
}

function visitStep(visit: VisitJson, view: DayView): Html {
  const id = `visit-${visit.id}`;
  const title = placeTitle(visit.place);
  const notes = [placeWhere(visit.place), visit.place.name ? '' : 'not named yet'].filter(Boolean).join(' · ');
  return html`<li class="step stay" data-kind="visit" id="${id}">
    <article class="card" aria-labelledby="${id}-title">
      <h3 id="${id}-title">${title}</h3>
      <p class="when">
        ${spanTimes(visit, view.timezone, view.day)} · ${durationText((visit.end_time - visit.start_time) * 1000)}
      </p>
      ${notes ? html`<p class="meta">${notes}</p>` : ''} ${correctPanel(visit, view.next.get(visit.id), view)}
    </article>
  </li>`;
}

function tripStep(trip: TripJson, view: DayView): Html {
  const id = `trip-${trip.id}`;
  const end = (visitId: string | null, gap: string, unseen: string) => {
    if (visitId === null) return gap;
    const visit = view.visits.get(visitId);
    return visit ? placeTitle(visit.place) : unseen;
  };
  const from = end(trip.from_visit_id, 'a gap in the data', 'an earlier stay');
  const to = end(trip.to_visit_id, 'a gap in the data', 'a later stay');
  return html`<li class="step trip" data-kind="trip" id="${id}">
    <article class="card" aria-labelledby="${id}-title">
      <h3 id="${id}-title">${MODE_LABEL[trip.mode]}, ${distanceText(trip.distance_m)}</h3>
      <p class="when">
        ${spanTimes(trip, view.timezone, view.day)} · ${durationText((trip.end_time - trip.start_time) * 1000)}
      </p>
      <p class="meta">From ${from} to ${to}</p>
    </article>
  </li>`;
}

function itemStep(entry: Entry, view: DayView): Html {
  const card =
    entry.kind === 'posts'
      ? postEntry(entry.item, view.extras, view.timezone, entry.ms)
      : entry.kind === 'media'
        ? mediumEntry(entry.item, view.timezone, entry.ms)
        : '';
  return html`<li class="step item-step">${card}</li>`;
}

function dayDate(ctx: PageContext): string {
  const { date } = ctx.request.params as { date?: unknown };
  return typeof date === 'string' ? date : '';
}

export const dayPage: AppPage = {
  path: '/app/days/:date',
  nav: '/',
  title: 'Day',
  // The scope buttons of the posts (data-change).
  scripts: ['timeline.js'],
  styles: ['public.css'],
  render: async (ctx) => {
    const day = dayDate(ctx);
    const { timezone } = await getSettings(ctx.db, ctx.auth.userId);
    const bounds = dayBounds(day, timezone);
    if (!bounds || !withinTimeLimit(bounds.start / 1000) || !withinTimeLimit(bounds.end / 1000)) {
      throw badRequest('The day must be a date as YYYY-MM-DD.', [{ path: 'params/date', message: 'is not a date' }]);
    }
    void ctx.reply.headers(mapPolicy(ctx.config));
    await refreshSpans(ctx);
    // A trip of the day may start or end at a stay just outside it: read a second either side
    // so the trip can name it, and show only what overlaps the day.
    const [around, items, places] = await Promise.all([
      spansBetween(ctx, bounds.start - 1000, bounds.end + 1000),
      ownItemsBetween(ctx, bounds.start, bounds.end),
      listPlaces(ctx.db, ctx.auth),
    ]);
    const overlaps = (span: { start_time: number; end_time: number }) =>
      span.end_time * 1000 > bounds.start && span.start_time * 1000 < bounds.end;
    const spans = { visits: around.visits.filter(overlaps), trips: around.trips.filter(overlaps) };
    const extras = await entryExtras(
      ctx,
      items.flatMap((e) => (e.kind === 'posts' ? [e.item] : [])),
      items.flatMap((e) => (e.kind === 'media' ? [e.item] : [])),
    );
    const next = new Map(spans.visits.slice(0, -1).map((v, i) => [v.id, spans.visits[i + 1]!]));
    const view: DayView = {
      day,
      timezone,
      places,
      visits: new Map(around.visits.map((v) => [v.id, v])),
      next,
      extras,
    };
    const steps: Step[] = [
      ...spans.visits.map((span): Step => ({ kind: 'visit', ms: span.start_time * 1000, span })),
      ...spans.trips.map((span): Step => ({ kind: 'trip', ms: span.start_time * 1000, span })),
      ...items.map((entry): Step => ({ kind: 'item', ms: entry.ms, entry })),
    ].sort((a, b) => a.ms - b.ms);

    const heading = dayHeading(day);
    const [year, month] = day.split('-');
    const located = spans.visits.length + spans.trips.length > 0;
    const first = spans.visits[0];
    const body = html`<nav class="pager" aria-label="Other days">
        <a href="/app/days/${addDays(day, -1)}" rel="prev"
          >← ${shortDay(addDays(day, -1), true)}<span class="visually-hidden">, the day before</span></a
        >
        <a href="/app/days/${addDays(day, 1)}" rel="next"
          >${shortDay(addDays(day, 1), true)}<span class="visually-hidden">, the day after</span> →</a
        >
      </nav>
      <h1>${heading}</h1>
      <p class="meta day-facts">
        ${located ? spansLine(spans, bounds.start, bounds.end) : 'No stays or trips'} · times in ${timezone} ·
        <a href="/app/years/${year}?month=${month}">The month in review</a> · <a href="/app/places">Places</a>
      </p>
      <div class="day-layout">
        ${
          located
            ? html`<section class="day-map" aria-labelledby="day-map-title">
                <h2 id="day-map-title">Track</h2>
                <div
                  class="map"
                  role="region"
                  aria-label="Map of the track of ${heading}"
                  data-waypost-map
                  data-map-manual
                  data-basemap="${JSON.stringify(ctx.config.mapStyle)}"
                  data-track="/locations/tracks/${day}?zoom=16"
                  ${first ? html`data-center="${first.lon},${first.lat}" data-zoom="14"` : ''}
                ></div>
                <p id="map-status" class="meta" role="status"></p>
                <p><a href="/app/map?day=${day}">On the big map</a></p>
              </section>`
            : ''
        }
        <section class="day-story" aria-labelledby="day-story-title">
          <h2 id="day-story-title">Hour by hour</h2>
          ${
            steps.length === 0
              ? html`<p class="empty">Nothing on this day: no stays, trips, posts or media.</p>`
              : html`<ol class="story">
                  ${steps.map((step) =>
                    step.kind === 'visit'
                      ? visitStep(step.span, view)
                      : step.kind === 'trip'
                        ? tripStep(step.span, view)
                        : itemStep(step.entry, view),
                  )}
                </ol>`
          }
        </section>
      </div>`;
    const head = located
      ? html`<link rel="stylesheet" href="${mapFolderUrl('maplibre-gl.css')}" />
          <script type="module" src="${mapFolderUrl('map-page.js')}"></script>`
      : undefined;
    return { title: heading, body, ...(head ? { head } : {}) };
  },
};
