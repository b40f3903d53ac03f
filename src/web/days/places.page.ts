// The person's places (`/app/places`, docs/design.md "The web app"): every place with its name
// or town, how many stays it holds and its radius, and per place the forms to rename it, change
// its radius, merge it into another place and delete it, all sent to the JSON API by app.js
// (POST /places/<id>, DELETE /places/<id>). Read through listPlaces after the refresh the API's
// reads do, so a place drawn or moved shows the stays it took in.
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
    await refreshSpans(ctx);
    const places = await listPlaces(ctx.db, ctx.auth);
    const count = `${places.length} ${places.length === 1 ? 'place' : 'places'}`;
    const body = html`<h1>Places</h1>
      <p class="meta">${count}, found from your stays or named by you. <a href="/app/years">The year in review</a></p>
      ${
        places.length === 0
          ? html`<p class="empty">No places yet: they come with the stays in your location history.</p>`
          : html`<ul class="places">
              ${placesInOrder(places).map((place) => placeCard(place, places))}
            </ul>`
      }`;
    return { title: 'Places', body };
  },
};
