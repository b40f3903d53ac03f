// Timeline (`/` signed in): the person's posts and media, newest first, grouped by day in their
// time zone, each day's location history as one card of its stays and trips (never a card per
// point: docs/design.md "The web app"), with filters by kind and scope, a jump to a date and
// "load more" (the reading and merging: ./own-items.ts).
import { html, type Html } from '../lib/html.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { dayCard } from './days/days.html.ts';
import { spansBetween } from './days/spans.ts';
import { entryExtras, mediumEntry, postEntry } from './entries.html.ts';
import { KINDS, loadOwnItems, pick, SCOPES, type Entry, type Query } from './own-items.ts';
import type { AppPage, PageContext } from './page.ts';
import { homeForVisitor } from './visitor.routes.ts';
import { searchBox } from './search.html.ts';
import { dayBounds, dayHeading, dayOf } from './time.ts';

/**
 * The card of a day's stays and trips, on the page that shows the newest of those starting that
 * day (so once, however the day's entries fall across pages), or nothing.
 */
async function dayCardOf(ctx: PageContext, day: string, list: readonly Entry[], timezone: string): Promise<Html> {
  const bounds = dayBounds(day, timezone);
  const shown = new Set(list.flatMap((e) => (e.kind === 'visits' || e.kind === 'trips' ? [e.item.id] : [])));
  if (!bounds || shown.size === 0) return html``;
  const spans = await spansBetween(ctx, bounds.start, bounds.end);
  const newest = [...spans.visits, ...spans.trips]
    .filter((span) => Math.round(span.start_time * 1000) >= bounds.start)
    .reduce<{ start_time: number; id: string } | undefined>(
      (best, span) =>
        !best || span.start_time > best.start_time || (span.start_time === best.start_time && span.id > best.id)
          ? span
          : best,
      undefined,
    );
  return newest && shown.has(newest.id) ? dayCard(day, spans, timezone, bounds) : html``;
}

function filters(query: Query): Html {
  const option = (value: string, label: string, current: string | undefined) =>
    html`<option value="${value}" ${current === value || (!current && value === '') ? html`selected` : ''}>
      ${label}
    </option>`;
  return html`<form class="filters" method="get" action="/" aria-label="Filter the timeline">
    <div class="row">
      <label
        >Kind
        <select name="kind">
          ${option('', 'Everything', query.kind)} ${option('posts', 'Posts', query.kind)}
          ${option('media', 'Photos, videos, audio', query.kind)} ${option('locations', 'Stays and trips', query.kind)}
        </select>
      </label>
      <label
        >Scope
        <select name="scope">
          ${option('', 'Public and private', query.scope)} ${option('public', 'Public', query.scope)}
          ${option('private', 'Private', query.scope)}
        </select>
      </label>
      <label>Jump to <input type="date" name="date" value="${query.date ?? ''}" /></label>
      <button type="submit">Show</button>
    </div>
  </form>`;
}

function saveAsView(query: Query): Html {
  const kinds = pick(query.kind, KINDS) ? [query.kind!] : [...KINDS];
  const scope = pick(query.scope, SCOPES);
  return html`<details>
    <summary>Save this filter as a view</summary>
    <form data-api="POST /views" data-done="Saved. It is listed on the Views page." class="card">
      ${kinds.map((k) => html`<input type="hidden" name="kinds" data-type="list" value="${k}" />`)}
      ${scope ? html`<input type="hidden" name="filters.scope" value="${scope}" />` : ''}
      <label for="view-name">Name</label>
      <input id="view-name" name="name" required maxlength="100" />
      <fieldset>
        <legend>Who can read it</legend>
        <label class="inline"><input type="radio" name="scope" value="private" checked /> Only me</label>
        <label class="inline"
          ><input type="radio" name="scope" value="public" /> Anyone with the link (public items only)</label
        >
      </fieldset>
      <button type="submit">Save view</button>
    </form>
  </details>`;
}

export const timelinePage: AppPage = {
  path: '/',
  title: 'Timeline',
  scripts: ['timeline.js'],
  visitor: homeForVisitor,
  render: async (ctx) => {
    const query = ctx.request.query as Query;
    const { timezone } = await getSettings(ctx.db, ctx.auth.userId);
    const { entries, more } = await loadOwnItems(ctx, query, timezone);
    const extras = await entryExtras(
      ctx,
      entries.flatMap((e) => (e.kind === 'posts' ? [e.item] : [])),
      entries.flatMap((e) => (e.kind === 'media' ? [e.item] : [])),
    );
    const days = new Map<string, Entry[]>();
    for (const e of entries) {
      const day = dayOf(e.ms, timezone);
      days.set(day, [...(days.get(day) ?? []), e]);
    }
    const cards = new Map(
      await Promise.all(
        [...days].map(async ([day, list]) => [day, await dayCardOf(ctx, day, list, timezone)] as const),
      ),
    );
    const onlyPublicPlaces = pick(query.kind, KINDS) === 'locations' && pick(query.scope, SCOPES) === 'public';
    const body = html`<h1>Timeline</h1>
      ${searchBox({ action: '/app/search', label: 'Search your posts, media and places' })} ${filters(query)}
      ${saveAsView(query)}
      <div class="timeline-days" aria-live="polite">
        ${
          onlyPublicPlaces
            ? html`<p class="empty">Stays and trips are never public: choose “Public and private” to see them.</p>`
            : entries.length === 0
              ? html`<p class="empty">Nothing here yet. <a href="/app/compose">Write a post</a> or upload a photo.</p>`
              : [...days].map(
                  ([day, list]) =>
                    html`<section class="day" data-day="${day}" aria-label="${dayHeading(day)}">
                      <h2><a href="/app/days/${day}">${dayHeading(day)}</a></h2>
                      ${cards.get(day)}
                      ${list.map((e) =>
                        e.kind === 'posts'
                          ? postEntry(e.item, extras, timezone, e.ms)
                          : e.kind === 'media'
                            ? mediumEntry(e.item, timezone, e.ms)
                            : '',
                      )}
                    </section>`,
                )
        }
      </div>
      ${more ? html`<p class="load-more"><a class="button secondary" href="${more}" data-more>Load more</a></p>` : ''}
      <p class="meta">Times are in ${timezone} (<a href="/app/settings">change</a>).</p>`;
    return { body };
  },
};
