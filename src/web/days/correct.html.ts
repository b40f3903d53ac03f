// A stay's "Name or correct" panel on the day's page (docs/design.md "The web app"): name its
// place, say it was at another place, split it, make it one stay with the next, or say it was
// none. Every form is sent to the JSON API by app.js; the page reloads to show what is stored now,
// and a refusal stands beside the field it names.
import { html, type Html } from '../../lib/html.ts';
import { PLACE_NAME_MAX, type Place } from '../../places/places.schemas.ts';
import type { VisitJson } from '../../visits/visits.schemas.ts';
import { clockOf, dayOf } from '../time.ts';
import { clockOn, placeTitle } from './days.html.ts';
import { placeOptions } from './place-options.html.ts';

export interface CorrectView {
  day: string;
  timezone: string;
  /** Every place of the person, for "It was at…". */
  places: readonly Place[];
}

/** `YYYY-MM-DDTHH:MM`, a datetime-local input's value, of an instant in the zone. */
function localInput(ms: number, timezone: string): string {
  return `${dayOf(ms, timezone)}T${clockOf(ms, timezone)}`;
}

/** The panel of one stay; `next` is the day's following stay, if any. */
export function correctPanel(visit: VisitJson, next: VisitJson | undefined, view: CorrectView): Html {
  const id = `visit-${visit.id}`;
  const title = placeTitle(visit.place);
  const api = `POST /locations/visits/${visit.id}`;
  const start = visit.start_time * 1000;
  const end = visit.end_time * 1000;
  // The middle of the stay, to the minute: a time the API takes, for the person to move.
  const middle = Math.floor((start + end) / 2 / 60_000) * 60_000;
  return html`<details class="correct">
    <summary>Name or correct<span class="visually-hidden"> the stay at ${title}</span></summary>
    <form data-api="POST /places/${visit.place_id}" data-done="reload">
      <label for="${id}-name">Name of this place</label>
      <div class="row">
        <input
          id="${id}-name"
          name="name"
          required
          maxlength="${PLACE_NAME_MAX}"
          autocomplete="off"
          value="${visit.place.name ?? ''}"
          aria-describedby="${id}-name-help"
        />
        <button type="submit">Save name</button>
      </div>
      <p class="help" id="${id}-name-help">Every stay at this place takes the name.</p>
    </form>
    <form data-api="${api}" data-done="reload">
      <label for="${id}-place">It was at…</label>
      <div class="row">
        <select id="${id}-place" name="place_id" aria-describedby="${id}-place-help">
          ${placeOptions(view.places, visit, visit.place_id)}
        </select>
        <button type="submit">Move the stay</button>
      </div>
      <p class="help" id="${id}-place-help">
        Only this stay moves; the other stays at ${title} stay there.
        <a href="/app/places">All places</a>
      </p>
    </form>
    <form data-api="${api}" data-done="reload">
      <label for="${id}-split">Split at</label>
      <div class="row">
        <input
          id="${id}-split"
          name="split_at"
          type="datetime-local"
          step="60"
          required
          value="${localInput(middle, view.timezone)}"
          data-type="local-time"
          data-zone="${view.timezone}"
          aria-describedby="${id}-split-help"
        />
        <button type="submit">Split</button>
      </div>
      <p class="help" id="${id}-split-help">
        Two stays, before and after this time (${view.timezone}), which must lie between
        ${clockOn(start, view.timezone, view.day)} and ${clockOn(end, view.timezone, view.day)}.
      </p>
    </form>
    ${
      next
        ? html`<form data-api="${api}" data-done="reload">
            <input type="hidden" name="merge_with" value="${next.id}" />
            <button type="submit" class="secondary" aria-describedby="${id}-merge-help">One stay with the next</button>
            <p class="help" id="${id}-merge-help">
              One stay from ${clockOn(start, view.timezone, view.day)} to
              ${clockOn(next.end_time * 1000, view.timezone, view.day)}, with the next stay at
              ${placeTitle(next.place)}; the trip between them goes.
            </p>
          </form>`
        : ''
    }
    <form data-api="${api}" data-done="reload">
      <input type="hidden" name="not_a_stay" value="true" data-type="json" />
      <button type="submit" class="secondary" aria-describedby="${id}-stay-help">Not a stay</button>
      <p class="help" id="${id}-stay-help">The time joins the trips before and after it.</p>
    </form>
  </details>`;
}
