// Timeline (`/` signed in): the person's posts, media and locations, newest first, grouped by
// day in their time zone, with filters by kind and scope, a jump to a date and "load more".
// One collection shown: "load more" follows its Link header. Several merged: each is read up to
// the same instant, and only items newer than the last one every full page reached are shown,
// so nothing is skipped or shown twice (the next page starts there).
import { html, type Html } from '../lib/html.ts';
import { deleteButton } from './buttons.html.ts';
import { itemMedia, mediumAlt, scopeBadge } from './items.html.ts';
import {
  nextLink,
  type Delivery,
  type LocationObject,
  type MediumObject,
  type PostObject,
  type ServiceObject,
  type SettingsObject,
} from './api-types.ts';
import type { AppPage, PageContext } from './page.ts';
import { homeForVisitor } from './pages.routes.ts';
import { clockOf, dayHeading, dayOf, endOfDay } from './time.ts';

const KINDS = ['posts', 'media', 'locations'] as const;
const SCOPES = ['public', 'private'] as const;
const PAGE_SIZE = 30;

type Entry =
  | { kind: 'posts'; ms: number; item: PostObject }
  | { kind: 'media'; ms: number; item: MediumObject }
  | { kind: 'locations'; ms: number; item: LocationObject };

interface Query {
  kind?: string;
  scope?: string;
  date?: string;
  before?: string;
  cursor?: string;
}

const pick = <T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined =>
  allowed.find((a) => a === value);

function pageUrl(query: Record<string, string | undefined>, path = '/'): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * One page of the chosen collections, merged newest first, and the link to the next (on the
 * page at `path`, which passes its query back here). The Media page uses it for its grid.
 */
export async function load(ctx: PageContext, query: Query, timezone: string, path = '/', size = PAGE_SIZE) {
  const kind = pick(query.kind, KINDS);
  const scope = pick(query.scope, SCOPES);
  const kinds = kind ? [kind] : KINDS;
  const scopes = scope ? [scope] : SCOPES;
  const before = query.before && /^\d{1,15}$/.test(query.before) ? Number(query.before) : undefined;
  const until = before ?? (query.date ? endOfDay(query.date, timezone) : undefined);
  const single = kinds.length === 1 && scopes.length === 1;
  const reads = kinds.flatMap((k) =>
    scopes.map(async (s) => {
      const params = new URLSearchParams({ count: String(size) });
      if (single && query.cursor) params.set('cursor', query.cursor);
      else if (until !== undefined) params.set('until_time', String(until / 1000));
      const answer = await ctx.api<{ time: number; id: string }[]>(`/${k}/${s}?${params.toString()}`);
      const entries = answer.data.map((item) => ({ kind: k, ms: Math.round(item.time * 1000), item }) as Entry);
      return { entries, next: nextLink(answer.headers.link) };
    }),
  );
  const pages = await Promise.all(reads);
  const filter = { kind, scope };
  if (single) {
    const [only] = pages;
    const cursor = only?.next ? new URL(only.next, 'http://x').searchParams.get('cursor') : null;
    return { entries: only?.entries ?? [], more: cursor ? pageUrl({ ...filter, cursor }, path) : undefined };
  }
  const reached = pages.filter((p) => p.next && p.entries.length > 0).map((p) => p.entries.at(-1)!.ms);
  const horizon = reached.length > 0 ? Math.max(...reached) : undefined;
  let entries = pages.flatMap((p) => p.entries);
  if (horizon !== undefined && entries.some((e) => e.ms > horizon)) entries = entries.filter((e) => e.ms > horizon);
  entries.sort((a, b) => b.ms - a.ms || (b.item.id > a.item.id ? 1 : -1));
  const oldest = entries.at(-1)?.ms;
  const more =
    horizon !== undefined && oldest !== undefined
      ? pageUrl({ ...filter, before: String(Math.min(horizon + 1, oldest)) }, path)
      : undefined;
  return { entries, more };
}

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
  post: PostObject,
  media: Map<string, MediumObject>,
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

function mediumEntry(medium: MediumObject, timezone: string, ms: number): Html {
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

function locationEntry(location: LocationObject, timezone: string, ms: number): Html {
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
    const settings = (await ctx.api<SettingsObject>('/settings')).data;
    const timezone = settings.timezone;
    const { entries, more } = await load(ctx, query, timezone);
    const media = new Map<string, MediumObject>();
    for (const e of entries) if (e.kind === 'media') media.set(e.item.id, e.item);
    const wanted = new Set(entries.flatMap((e) => (e.kind === 'posts' ? e.item.media_ids : [])));
    await Promise.all(
      [...wanted]
        .filter((id) => !media.has(id))
        .map(async (id) => {
          const answer = await ctx.api<MediumObject>(`/media/id/${id}`).catch(() => undefined);
          if (answer) media.set(id, answer.data);
        }),
    );
    const delivered = entries.some((e) => e.kind === 'posts' && (e.item.deliveries?.length ?? 0) > 0);
    const services = new Map(
      delivered ? (await ctx.api<ServiceObject[]>('/services')).data.map((service) => [service.id, service.name]) : [],
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
