// A post and a medium as cards, with their scope button and Delete, on the Timeline and on a
// day (./days/day.page.ts); and what those cards need beyond the items themselves: the media a
// post names and the names of the services it went to.
import { html, type Html } from '../lib/html.ts';
import { getMedium } from '../media/media.logic.ts';
import type { Medium } from '../media/media.schemas.ts';
import { TEXT_MAX, type Delivery, type Post } from '../posts/posts.schemas.ts';
import { listServices } from '../services/services.logic.ts';
import { deleteButton } from './buttons.html.ts';
import { itemMedia, mediumAlt, scopeBadge } from './items.html.ts';
import type { PageContext } from './page.ts';
import { clockOf } from './time.ts';

/** What the cards of some posts and media show besides them. */
export interface EntryExtras {
  media: ReadonlyMap<string, Medium>;
  /** Service id -> name. */
  services: ReadonlyMap<string, string>;
}

/**
 * The media the posts name (those among `media` already, the rest read as the owner reads them;
 * one that is gone is left out) and, when a post was delivered, the names of the services.
 */
export async function entryExtras(
  ctx: PageContext,
  posts: readonly Post[],
  media: readonly Medium[],
): Promise<EntryExtras> {
  const byId = new Map(media.map((medium) => [medium.id, medium]));
  const wanted = new Set(posts.flatMap((post) => post.media_ids));
  await Promise.all(
    [...wanted]
      .filter((id) => !byId.has(id))
      .map(async (id) => {
        const medium = await getMedium(ctx.db, ctx.config.baseUrl, id, ctx.auth).catch(() => undefined);
        if (medium) byId.set(id, medium);
      }),
  );
  const delivered = posts.some((post) => (post.deliveries?.length ?? 0) > 0);
  const services = new Map(
    delivered
      ? (await listServices(ctx.db, ctx.config.baseUrl, ctx.auth.userId, ctx.secretsKey)).map((service) => [
          service.id,
          service.name,
        ])
      : [],
  );
  return { media: byId, services };
}

/** What became of the latest edit of the text at one service, in words; empty when never edited. */
function editWords(d: Delivery): Html | string {
  switch (d.edit_status) {
    case 'pending':
      return html`, edit ${d.edit_error ? html`waiting (last try: ${d.edit_error})` : 'on its way'}`;
    case 'delivered':
      return ', edit delivered';
    case 'failed':
      return html`, <span class="status-failed">edit failed</span> (${d.edit_error ?? 'no reason given'})`;
    case 'unsupported':
      return ', takes no edits: it keeps the first text';
    default:
      return '';
  }
}

/**
 * Where a post went: each service, its delivery's status and, when an attempt failed, the error
 * (a pending delivery with an error is waiting to be tried again), and what became of an edit.
 */
function deliveriesLine(postId: string, deliveries: readonly Delivery[], services: ReadonlyMap<string, string>): Html {
  const settled = deliveries.filter((d) => d.status === 'failed' || d.status === 'cancelled');
  // A failed or cancelled delivery can be tried again wherever it is shown (docs/api.md "Deliveries").
  const retries = settled.map((d) => {
    const name = services.get(d.service_id) ?? d.service_id;
    return html`<form data-api="POST /posts/id/${postId}/deliveries/${d.service_id}/retry" data-done="reload">
      <button type="submit" class="secondary small">Retry ${name}</button>
    </form>`;
  });
  return html`${deliveriesText(deliveries, services)}${retries.length ? html`<div class="retries">${retries}</div>` : ''}`;
}

function deliveriesText(deliveries: readonly Delivery[], services: ReadonlyMap<string, string>): Html {
  return html`<p class="meta deliveries">
    Deliveries:
    ${deliveries.map(
      (d, i) =>
        html`${i > 0 ? '; ' : ''}${services.get(d.service_id) ?? d.service_id}:
          <span class="status-${d.status}">${d.status}</span>${
            d.last_error ? html` (${d.status === 'pending' ? 'last try: ' : ''}${d.last_error})` : ''
          }${editWords(d)}`,
    )}
  </p>`;
}

const timeOf = (ms: number, timezone: string) =>
  html`<time datetime="${new Date(ms).toISOString()}">${clockOf(ms, timezone)}</time>`;

export function postEntry(post: Post, extras: EntryExtras, timezone: string, ms: number): Html {
  const other = post.scope === 'public' ? 'private' : 'public';
  return html`<article class="card item" data-item data-kind="post" id="post-${post.id}">
    <div>
      <p class="meta">Post · ${timeOf(ms, timezone)} ${scopeBadge(post.scope)}</p>
      <p class="text">${post.text}</p>
      ${itemMedia(post.media_ids, extras.media)}
      ${post.location ? html`<p class="meta">At ${post.location.lat}, ${post.location.lon}</p>` : ''}
      ${post.deliveries && post.deliveries.length > 0 ? deliveriesLine(post.id, post.deliveries, extras.services) : ''}
    </div>
    <details class="edit">
      <summary>Edit the text<span class="visually-hidden"> of this post</span></summary>
      <form data-api="POST /posts/id/${post.id}" data-done="reload">
        <label for="edit-${post.id}">Text</label>
        <textarea
          id="edit-${post.id}"
          name="text"
          required
          maxlength="${TEXT_MAX * 4}"
          aria-describedby="edit-${post.id}-help"
        >
${post.text}</textarea>
        <p class="help" id="edit-${post.id}-help">
          Mastodon and Micropub sites get the new text as an edit; Bluesky and webhooks keep the first.
        </p>
        <button type="submit">Save the text</button>
      </form>
    </details>
    <div class="actions">
      <button type="button" class="secondary small" data-change="/posts/id/${post.id}" data-scope="${other}">
        Make ${other}<span class="visually-hidden"> this post</span>
      </button>
      ${deleteButton({ path: `/posts/id/${post.id}`, confirm: 'Delete this post for good?', what: 'this post' })}
    </div>
  </article>`;
}

export function mediumEntry(medium: Medium, timezone: string, ms: number): Html {
  return html`<article class="card item" data-item data-kind="medium">
    <div>
      <p class="meta">
        ${medium.kind === 'image' ? 'Photo' : medium.kind === 'video' ? 'Video' : medium.kind === 'audio' ? 'Audio' : 'File'}
        · ${timeOf(ms, timezone)} ${scopeBadge(medium.scope)}
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
