// A post and a medium as cards, with their scope button and Delete, on the Timeline and on a
// day (./days/day.page.ts); and what those cards need beyond the items themselves: the media a
// post names and the names of the services it went to.
import { html, type Html } from '../lib/html.ts';
import { getMedium } from '../media/media.logic.ts';
import type { Medium } from '../media/media.schemas.ts';
import { TEXT_MAX, type Post } from '../posts/posts.schemas.ts';
import { listServices } from '../services/services.logic.ts';
import { deleteButton } from './buttons.html.ts';
import { deliveriesLine } from './deliveries.html.ts';
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

const timeOf = (ms: number, timezone: string) =>
  html`<time datetime="${new Date(ms).toISOString()}">${clockOf(ms, timezone)}</time>`;

/** The form that changes a post's text, closed until asked for. */
export function editTextForm(post: Post, open = false): Html {
  return html`<details class="edit" ${open ? html`open` : ''}>
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
  </details>`;
}

export function postEntry(post: Post, extras: EntryExtras, timezone: string, ms: number): Html {
  const other = post.scope === 'public' ? 'private' : 'public';
  return html`<article class="card item" data-item data-kind="post" id="post-${post.id}">
    <div>
      <p class="meta"><a href="/app/posts/${post.id}">Post · ${timeOf(ms, timezone)}</a> ${scopeBadge(post.scope)}</p>
      <p class="text">${post.text}</p>
      ${itemMedia(post.media_ids, extras.media, timezone)}
      ${post.location ? html`<p class="meta">At ${post.location.lat}, ${post.location.lon}</p>` : ''}
      ${post.deliveries && post.deliveries.length > 0 ? deliveriesLine(post.id, post.deliveries, extras.services) : ''}
    </div>
    ${editTextForm(post)}
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
              ? html`<img src="/media/id/${medium.id}/thumbnail" alt="${mediumAlt(medium, timezone)}" loading="lazy" />`
              : html`<span>${mediumAlt(medium, timezone)}</span>`
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
