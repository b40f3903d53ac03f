// The person's places (`/app/places`, docs/design.md "The web app"): every place with its name
// or town, how many stays it holds and its radius, and per place the forms to rename it, change
// its radius, merge it into another place and delete it, all sent to the JSON API by app.js
// (POST /places/<id>, DELETE /places/<id>). Read through listPlaces after the refresh the API's
// reads do, so a place drawn or moved shows the stays it took in. PLACES_PAGE places a page, in
// the order of placesInOrder, narrowed by `q` (a name, town or country) and paged by `page`.
import { badRequest } from '../../core/errors.ts';
import { html, type Html } from '../../lib/html.ts';
import { listPlaces } from '../../places/places.logic.ts';
import { PLACE_NAME_MAX, RADIUS_MAX_M, RADIUS_MIN_M, type Place } from '../../places/places.schemas.ts';
import { deleteButton } from '../buttons.html.ts';
import type { AppPage } from '../page.ts';
import { placeTitle, placeWhere } from './days.html.ts';
import { nearestPlaces, placeOptions, placesInOrder } from './place-options.html.ts';
import { refreshSpans } from './spans.ts';

/**
 * How many places a merge select offers, nearest first: two places that are one are near each
 * other, and a select per place of every place would grow the page with the square of them.
 */
export const MERGE_CHOICES = 20;

/** Places a page: a thousand cards of three forms each made a page of megabytes. */
export const PLACES_PAGE = 50;
const FILTER_MAX = 100;

/** Lower case without accents, so "zurich" finds Zürich. */
const folded = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

/** The places whose name, town or country holds `q`. */
function matching(places: readonly Place[], q: string): Place[] {
  const wanted = folded(q);
  return places.filter((p) =>
    [p.name, p.city, p.country].some((text) => text !== null && folded(text).includes(wanted)),
  );
}

function pageOf(raw: unknown): number {
  if (raw === undefined || raw === '') return 1;
  const page = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(page >= 1)) {
    throw badRequest('The page must be a whole number from 1.', [
      { path: 'querystring/page', message: 'is not a page' },
    ]);
  }
  return page;
}

function filterOf(raw: unknown): string {
  if (raw === undefined) return '';
  if (typeof raw !== 'string' || raw.length > FILTER_MAX) {
    throw badRequest(`The filter must be text of at most ${FILTER_MAX} characters.`, [
      { path: 'querystring/q', message: 'is not a filter' },
    ]);
  }
  return raw.trim();
}

function pageHref(page: number, q: string): string {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (page > 1) query.set('page', String(page));
  const text = query.toString();
  return text ? `/app/places?${text}` : '/app/places';
}

function pager(page: number, pages: number, q: string): Html {
  if (pages <= 1) return html``;
  return html`<nav class="pager" aria-label="Pages of places">
    ${page > 1 ? html`<a href="${pageHref(page - 1, q)}" rel="prev">← Page ${page - 1}</a>` : ''}
    <span class="meta">Page ${page} of ${pages}</span>
    ${page < pages ? html`<a href="${pageHref(page + 1, q)}" rel="next">Page ${page + 1} →</a>` : ''}
  </nav>`;
}

function filterForm(q: string): Html {
  return html`<form class="filter" method="get" action="/app/places" role="search" aria-label="Places">
    <label for="places-q">Find a place</label>
    <div class="row">
      <input
        id="places-q"
        name="q"
        type="search"
        maxlength="${FILTER_MAX}"
        value="${q}"
        aria-describedby="places-q-help"
      />
      <button type="submit">Find</button>
    </div>
    <p class="help" id="places-q-help">By its name, town or country.</p>
  </form>`;
}

function placeCard(place: Place, places: readonly Place[]): Html {
  const id = `place-${place.id}`;
  const title = placeTitle(place);
  // An unnamed place's title is its town already.
  const where = placeWhere(place.name ? place : { city: null, country: place.country });
  const others = nearestPlaces(places, place, MERGE_CHOICES);
  const stays = `${place.visits} ${place.visits === 1 ? 'stay' : 'stays'}`;
  return html`<li data-item id="${id}">
    <article class="card" aria-labelledby="${id}-title">
      <h2 id="${id}-title">${title}</h2>
      <p class="meta">
        ${[where, place.name ? '' : 'not named yet', stays, `radius ${place.radius_m} m`].filter(Boolean).join(' · ')}
      </p>
      <form data-api="POST /places/${place.id}" data-done="reload">
        <label for="${id}-name">Name</label>
        <div class="row">
          <input
            id="${id}-name"
            name="name"
            maxlength="${PLACE_NAME_MAX}"
            autocomplete="off"
            value="${place.name ?? ''}"
            data-empty="null"
            aria-describedby="${id}-name-help"
          />
          <button type="submit">Save name</button>
        </div>
        <p class="help" id="${id}-name-help">Every stay here takes the name; empty forgets it.</p>
      </form>
      <form data-api="POST /places/${place.id}" data-done="reload">
        <label for="${id}-radius">Radius in metres</label>
        <div class="row">
          <input
            id="${id}-radius"
            name="radius_m"
            type="number"
            inputmode="numeric"
            min="${RADIUS_MIN_M}"
            max="${RADIUS_MAX_M}"
            step="1"
            required
            value="${place.radius_m}"
            data-type="number"
            aria-describedby="${id}-radius-help"
          />
          <button type="submit">Save radius</button>
        </div>
        <p class="help" id="${id}-radius-help">
          Stays within this distance of the centre belong to the place (${RADIUS_MIN_M} to ${RADIUS_MAX_M} m).
        </p>
      </form>
      ${
        others.length
          ? html`<form data-api="POST /places/${place.id}" data-done="reload">
              <label for="${id}-merge">Merge into</label>
              <div class="row">
                <select id="${id}-merge" name="merge_into" aria-describedby="${id}-merge-help">
                  ${placeOptions(others, place)}
                </select>
                <button type="submit">Merge</button>
              </div>
              <p class="help" id="${id}-merge-help">
                Its stays go to the other place and this one goes. The ${MERGE_CHOICES} nearest places are offered.
              </p>
            </form>`
          : ''
      }
      ${deleteButton({
        path: `/places/${place.id}`,
        confirm: `Delete ${title}? Its stays will find another place.`,
        what: `the place ${title}`,
      })}
    </article>
  </li>`;
}

export const placesPage: AppPage = {
  path: '/app/places',
  // The bar has no room left: the page is reached from the day and year pages (docs/design.md "The web app").
  nav: '/app/years',
  title: 'Places',
  render: async (ctx) => {
    const query = ctx.request.query as Record<string, unknown>;
    const q = filterOf(query.q);
    const page = pageOf(query.page);
    await refreshSpans(ctx);
    const places = await listPlaces(ctx.db, ctx.auth);
    const shown = q ? matching(places, q) : places;
    const pages = Math.max(1, Math.ceil(shown.length / PLACES_PAGE));
    const onPage = placesInOrder(shown).slice((page - 1) * PLACES_PAGE, page * PLACES_PAGE);
    const count = `${places.length} ${places.length === 1 ? 'place' : 'places'}`;
    const found = `${shown.length} ${shown.length === 1 ? 'place matches' : 'places match'} “${q}”.`;
    const body = html`<h1>Places</h1>
      <p class="meta">${count}, found from your stays or named by you. <a href="/app/years">The year in review</a></p>
      ${places.length > PLACES_PAGE || q ? filterForm(q) : ''}
      ${q ? html`<p role="status">${found} <a href="/app/places">All places</a></p>` : ''}
      ${
        places.length === 0
          ? html`<p class="empty">No places yet: they come with the stays in your location history.</p>`
          : onPage.length === 0
            ? html`<p class="empty">
                ${q ? 'No place matches.' : html`No places on this page. <a href="/app/places">The first page</a>`}
              </p>`
            : html`<ul class="places">
                ${onPage.map((place) => placeCard(place, places))}
              </ul>`
      }
      ${pager(page, pages, q)}`;
    return { title: 'Places', body };
  },
};
