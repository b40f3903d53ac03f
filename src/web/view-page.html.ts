// A view opened in a browser (docs/api-views.md "In a browser"): GET /views/<id> answers this
// page when the request prefers HTML (src/http/negotiation.ts), and the JSON to apps; the view
// routes get these two functions from src/app.ts, so src/views/ knows nothing of the pages.
// The page shows exactly what the JSON does: the same items of the same page, read by the same
// call with the same access rules (a public view: public items only, rounded places).
import { html, Html } from '../lib/html.ts';
import { textToHtml } from '../posts/posts.feeds.ts';
import type { ViewWithItems } from '../views/views.logic.ts';
import type { Location } from '../locations/locations.schemas.ts';
import type { Medium } from '../media/media.schemas.ts';
import type { Post } from '../posts/posts.schemas.ts';
import { publicPage } from './profile/profile.html.ts';
import { readableTime } from './time.ts';

/** An instant on the owner's clock, with the zone's short name, as on the public pages. */
const timeOf = (seconds: number, zone: string) =>
  html`<time datetime="${new Date(seconds * 1000).toISOString()}">${readableTime(seconds, zone)}</time>`;

function postCard(post: Post, zone: string): Html {
  return html`<article class="entry">
    <div class="text">${new Html(textToHtml(post.text))}</div>
    <footer>Post · ${timeOf(post.time, zone)}</footer>
  </article>`;
}

function mediumCard(medium: Medium, zone: string): Html {
  const label = medium.caption || `A ${medium.kind === 'image' ? 'photo' : medium.kind} without a caption`;
  const shown =
    medium.kind === 'image'
      ? html`<a href="${medium.url}"
          ><img src="${medium.thumbnail_url ?? medium.url}" alt="${label}" loading="lazy"
        /></a>`
      : html`<a href="${medium.url}">${label}</a>`;
  return html`<article class="entry">
    <div class="media">${shown}</div>
    ${medium.caption ? html`<p>${medium.caption}</p>` : ''}
    <footer>${medium.kind === 'image' ? 'Photo' : 'File'} · ${timeOf(medium.time, zone)}</footer>
  </article>`;
}

function locationRow(location: Location, zone: string): Html {
  return html`<li>${timeOf(location.time, zone)}: ${location.lat.toFixed(5)}, ${location.lon.toFixed(5)}</li>`;
}

export function viewPageHtml(view: ViewWithItems, nextHref: string | undefined, zone: string): string {
  const cards = view.items.filter((entry) => entry.kind !== 'locations');
  const places = view.items.flatMap((entry) => (entry.kind === 'locations' ? [entry.item] : []));
  const body = html`<h1>${view.name}</h1>
    ${view.description ? html`<p>${view.description}</p>` : ''}
    <p class="meta">
      A ${view.scope === 'public' ? 'public' : 'private'} view of
      <a href="/@${encodeURIComponent(view.username)}">${view.username}</a>'s ${view.kinds.join(', ')}.
    </p>
    <p class="meta zone-note">Times are in ${zone}, ${view.username}'s time zone.</p>
    ${view.items.length === 0 ? html`<p>Nothing to show here yet.</p>` : ''}
    ${
      cards.length > 0
        ? html`<section aria-label="Posts and media" class="h-feed">
            ${cards.map((entry) =>
              entry.kind === 'posts'
                ? postCard(entry.item, zone)
                : entry.kind === 'media'
                  ? mediumCard(entry.item, zone)
                  : '',
            )}
          </section>`
        : ''
    }
    ${
      places.length > 0
        ? html`<section aria-labelledby="view-places">
            <h2 id="view-places">Places</h2>
            <ul>
              ${places.map((place) => locationRow(place, zone))}
            </ul>
          </section>`
        : ''
    }
    ${nextHref ? html`<p><a href="${nextHref}" rel="next">Older items</a></p>` : ''}
    <p class="help">Apps read the same view as JSON from this address (<code>Accept: application/json</code>).</p>`;
  return publicPage({ title: view.name, head: html`<meta name="robots" content="noindex" />`, body });
}

/** A view that cannot be shown, as a page: missing (or another person's private one), or private and not signed in. */
export function viewProblemHtml(status: number, message: string): string {
  const body =
    status === 401
      ? html`<h1>This view is private</h1>
          <p>Only its owner can open it. <a href="/account">Sign in</a> as its owner and open this link again.</p>`
      : status === 404
        ? html`<h1>Not found</h1>
            <p>There is no view here. It may never have existed, been deleted, or it is not public.</p>`
        : html`<h1>This address is not a page</h1>
            <p>${message}</p>`;
  return publicPage({ title: 'View', head: html`<meta name="robots" content="noindex" />`, body });
}
