// A post's own page for its owner (`/app/posts/<id>`): the post, its media, where it was, where
// it came from, and where it went: each delivery's real state, its error, when a failed try is
// tried again, and Retry (./deliveries.html.ts); the text's edit form, its scope and Delete.
// Read as the API's `GET /posts/id/<id>` reads it for the owner's token; another person's post is
// not found here (their public one has its public page).
import { html } from '../lib/html.ts';
import { notFound } from '../core/errors.ts';
import { getPost } from '../posts/posts.logic.ts';
import { deliveriesForPosts, nextTries } from '../services/deliveries.logic.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { deleteButton } from './buttons.html.ts';
import { deliveriesList } from './deliveries.html.ts';
import { editTextForm, entryExtras } from './entries.html.ts';
import { checkedId, itemMedia, scopeBadge } from './items.html.ts';
import type { AppPage } from './page.ts';
import { clockOf, dayHeading, dayOf } from './time.ts';

/** The first words of a text, for the page's title. */
function titleOf(text: string): string {
  const words = [...text.replace(/\s+/g, ' ').trim()];
  return words.length > 60 ? `${words.slice(0, 59).join('')}…` : words.join('');
}

export const postPage: AppPage = {
  path: '/app/posts/:id',
  nav: '/',
  title: 'Post',
  narrow: true,
  scripts: ['timeline.js'],
  render: async (ctx) => {
    const { id } = ctx.request.params as { id: string };
    const post = await getPost(ctx.db, checkedId(id), ctx.auth, deliveriesForPosts);
    // Another person's public post reads here too through the API's rules: this page is the owner's.
    if (post.deliveries === undefined) throw notFound('No such post.');
    const { timezone } = await getSettings(ctx.db, ctx.auth.userId);
    const extras = await entryExtras(ctx, [post], []);
    const tries = await nextTries(ctx.db, ctx.auth.userId, post.id);
    const ms = Math.round(post.time * 1000);
    const day = dayOf(ms, timezone);
    const other = post.scope === 'public' ? 'private' : 'public';
    const source = post.source ? extras.services.get(post.source) : undefined;
    const body = html`<h1>Post ${scopeBadge(post.scope)}</h1>
      <article class="card post-page" data-item>
        <p class="meta">
          <time datetime="${new Date(ms).toISOString()}"
            ><a href="/app/days/${day}">${dayHeading(day)}</a>, ${clockOf(ms, timezone)}</time
          >
          (${timezone})
        </p>
        <p class="text">${post.text}</p>
        ${itemMedia(post.media_ids, extras.media, timezone)}
        ${post.location ? html`<p class="meta">Written at ${post.location.lat}, ${post.location.lon}</p>` : ''}
        ${
          post.source
            ? html`<p class="meta">
                Brought in from
                ${source ?? 'a service since removed'}${
                  post.source_url
                    ? html` (<a href="${post.source_url}" rel="noopener noreferrer">the original</a>)`
                    : ''
                }
              </p>`
            : ''
        }
        ${
          post.scope === 'public'
            ? html`<p class="meta">
                Anyone can read it on <a href="/@${ctx.viewer.username}/${post.id}">its public page</a>.
              </p>`
            : html`<p class="meta">Only you can see it.</p>`
        }
        ${editTextForm(post)}
        <div class="row actions">
          <button type="button" class="secondary small" data-change="/posts/id/${post.id}" data-scope="${other}">
            Make ${other}<span class="visually-hidden"> this post</span>
          </button>
          ${deleteButton({
            path: `/posts/id/${post.id}`,
            confirm: 'Delete this post for good?',
            what: 'this post',
            then: '/',
          })}
        </div>
      </article>
      <h2>Where it went</h2>
      ${deliveriesList(post.id, post.deliveries, extras.services, timezone, tries)}
      <p><a href="/">Back to the timeline</a></p>`;
    return { body, title: titleOf(post.text) || 'Post' };
  },
};
