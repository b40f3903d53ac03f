// Timeline (`/` signed in): the person's posts, media and locations, newest first, grouped by
// day in their time zone, with filters by kind and scope, a jump to a date and "load more"
// (the reading and merging: ./own-items.ts).
import { html, type Html } from '../lib/html.ts';
import type { Location } from '../locations/locations.schemas.ts';
import { getMedium } from '../media/media.logic.ts';
import { type Medium } from '../media/media.schemas.ts';
import type { Delivery, Post } from '../posts/posts.schemas.ts';
import { listServices } from '../services/services.logic.ts';
import { readSettingsObject } from '../settings/settings.api.ts';
import { deleteButton } from './buttons.html.ts';
import { itemMedia, mediumAlt, scopeBadge } from './items.html.ts';
import { KINDS, loadOwnItems, pick, SCOPES, type Entry, type Query } from './own-items.ts';
import type { AppPage } from './page.ts';
import { homeForVisitor } from './visitor.routes.ts';
import { clockOf, dayHeading, dayOf } from './time.ts';

/**
 * Where a post went: each service, its delivery's status and, when an attempt failed, the error
 * (a pending delivery with an error is waiting to be tried again).
 */
function deliveriesLine(deliveries: readonly Delivery[], services: ReadonlyMap<string, string>): Html {
  return html`<p class="meta deliveries">
    Deliveries:
    ${deliveries.map(
      (d, i) =>
        html`${i > 0 ? '; ' : ''}${services.get(d.service_id) ?? d.service_id}:
          <span class="status-${d.status}">${d.status}</span>${
            d.last_error ? html` (${d.status === 'pending' ? 'last try: ' : ''}${d.last_error})` : ''
          }`,
    )}
  </p>`;
}

function postEntry(
  post: Post,
  media: Map<string, Medium>,
  services: ReadonlyMap<string, string>,
  timezone: string,
  ms: number,
): Html {
  const other = post.scope === 'public' ? 'private' : 'public';
  return html`<article class="card item" data-item data-kind="post" id="post-${post.id}">
    <div>
      <p class="meta">
        Post · <time datetime="${new Date(ms).toISOString()}">${clockOf(ms, timezone)}</time> ${scopeBadge(post.scope)}
      </p>
      <p class="text">${post.text}</p>
      ${itemMedia(post.media_ids, media)}
      ${post.location ? html`<p class="meta">At ${post.location.lat}, ${post.location.lon}</p>` : ''}
      ${post.deliveries && post.deliveries.length > 0 ? deliveriesLine(post.deliveries, services) : ''}
    </div>
    <div class="actions">
      <button type="button" class="secondary small" data-change="/posts/id/${post.id}" data-scope="${other}">
        Make ${other}<span class="visually-hidden"> this post</span>
      </button>
      ${deleteButton({ path: `/posts/id/${post.id}`, confirm: 'Delete this post for good?', what: 'this post' })}
    </div>
  </article>`;
}

function mediumEntry(medium: Medium, timezone: string, ms: number): Html {
  return html`<article class="card item" data-item data-kind="medium">
    <div>
      <p class="meta">
        ${medium.kind === 'image' ? 'Photo' : medium.kind === 'video' ? 'Video' : medium.kind === 'audio' ? 'Audio' : 'File'}
        · <time datetime="${new Date(ms).toISOString()}">${clockOf(ms, timezone)}</time> ${scopeBadge(medium.scope)}
      </p>
      <div class="thumbs">
        <a href="/app/media/${medium.id}">
          ${
            medium.thumbnail_url
              ? html`<img src="/media/id/${medium.id}/thumbnail" alt="${mediumAlt(medium)}" loading="lazy" />`
              : html`<span>${mediumAlt(medium)}</span>`
          }
        </a>
      </div>
      ${medium.caption ? html`<p class="text">${medium.caption}</p>` : ''}
    </div>
    <div class="actions">
      ${deleteButton({ path: `/media/id/${medium.id}`, confirm: 'Delete this file for good?', what: 'this file' })}
    </div>
  </article>`;
}

function locationEntry(location: Location, timezone: string, ms: number): Html {
  return html`<article class="card item" data-item data-kind="location">
    <div>
      <p class="meta">
        Location · <time datetime="${new Date(ms).toISOString()}">${clockOf(ms, timezone)}</time>
        ${scopeBadge(location.scope)}
      </p>
      <p>
        ${location.lat.toFixed(5)}, ${location.lon.toFixed(5)}
        ${location.accuracy !== null ? html`<span class="meta">(± ${Math.round(location.accuracy)} m)</span>` : ''}
      </p>
    </div>
    <div class="actions">
      ${deleteButton({
        path: `/locations/id/${location.id}`,
        confirm: 'Delete this location for good?',
        what: 'this location',
      })}
    </div>
  </article>`;
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
          ${option('media', 'Photos, videos, audio', query.kind)} ${option('locations', 'Locations', query.kind)}
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
    const { timezone } = await readSettingsObject(ctx.db, ctx.auth.userId);
    const { entries, more } = await loadOwnItems(ctx, query, timezone);
    const media = new Map<string, Medium>();
    for (const e of entries) if (e.kind === 'media') media.set(e.item.id, e.item);
    const wanted = new Set(entries.flatMap((e) => (e.kind === 'posts' ? e.item.media_ids : [])));
    await Promise.all(
      [...wanted]
        .filter((id) => !media.has(id))
        .map(async (id) => {
          const medium = await getMedium(ctx.db, ctx.config.baseUrl, id, ctx.auth).catch(() => undefined);
          if (medium) media.set(id, medium);
        }),
    );
    const delivered = entries.some((e) => e.kind === 'posts' && (e.item.deliveries?.length ?? 0) > 0);
    const services = new Map(
      delivered
        ? (await listServices(ctx.db, ctx.config.baseUrl, ctx.auth.userId, ctx.secretsKey)).map((service) => [
            service.id,
            service.name,
          ])
        : [],
    );
    const days = new Map<string, Entry[]>();
    for (const e of entries) {
      const day = dayOf(e.ms, timezone);
      days.set(day, [...(days.get(day) ?? []), e]);
    }
    const body = html`<h1>Timeline</h1>
      ${filters(query)} ${saveAsView(query)}
      <div class="timeline-days" aria-live="polite">
        ${
          entries.length === 0
            ? html`<p class="empty">Nothing here yet. <a href="/app/compose">Write a post</a> or upload a photo.</p>`
            : [...days].map(
                ([day, list]) =>
                  html`<section class="day" data-day="${day}" aria-label="${dayHeading(day)}">
                    <h2>${dayHeading(day)}</h2>
                    ${list.map((e) =>
                      e.kind === 'posts'
                        ? postEntry(e.item, media, services, timezone, e.ms)
                        : e.kind === 'media'
                          ? mediumEntry(e.item, timezone, e.ms)
                          : locationEntry(e.item, timezone, e.ms),
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
