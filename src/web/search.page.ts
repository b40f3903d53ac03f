// Search (`/app/search?q=…`, docs/api.md "Search"): the signed-in person's posts, media and places
// through the same `search` the API's route calls, as the person (every permission, so private
// items and places too). Each result links to where the item lives in the app: a post to its day,
// a medium to its page, a place to its card on the Places page. The timeline and the Media page
// carry the same box.
import { AppError } from '../core/errors.ts';
import { html } from '../lib/html.ts';
import { ownSearcher, search, type Found } from '../search/search.logic.ts';
import { SEARCH_KINDS } from '../search/search.schemas.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { pick } from './own-items.ts';
import type { AppPage } from './page.ts';
import { searchBox, searchResults } from './search.html.ts';
import { clockOf, dayOf } from './time.ts';

const PAGE_SIZE = 20;
const MEDIUM_LABEL: Record<string, string> = { image: 'Photo', video: 'Video', audio: 'Audio' };
const KIND_LABEL = { posts: 'Post', media: 'Medium', places: 'Place' } as const;

export const searchPage: AppPage = {
  path: '/app/search',
  nav: '/',
  title: 'Search',
  render: async (ctx) => {
    const query = ctx.request.query as Record<string, string | undefined>;
    const q = typeof query.q === 'string' ? query.q : '';
    const kind = pick(query.kind, SEARCH_KINDS);
    const box = searchBox({
      action: '/app/search',
      label: 'Search your posts, media and places',
      q,
      ...(kind ? { hidden: { kind } } : {}),
    });
    if (q.trim() === '')
      return {
        body: html`<h1>Search</h1>
          ${box}`,
      };
    const { timezone } = await getSettings(ctx.db, ctx.auth.userId);
    let page;
    try {
      page = await search(ctx.db, ctx.config.baseUrl, ctx.cursors, ownSearcher(ctx.auth, kind ? { kind } : {}), {
        q,
        count: PAGE_SIZE,
        cursor: typeof query.cursor === 'string' ? query.cursor : undefined,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      const field = error.extra.errors?.[0];
      const reason = field?.path === 'querystring/q' ? `The search ${field.message}.` : error.message;
      return {
        status: 400,
        body: html`<h1>Search</h1>
          ${box}
          <p class="error" role="alert">${reason}</p>`,
      };
    }
    const ms = (found: Found) => Math.round(found.time * 1000);
    const next = new URLSearchParams({ q, ...(kind ? { kind } : {}), ...(page.next ? { cursor: page.next } : {}) });
    const body = html`<h1>Search</h1>
      ${box}
      ${searchResults(
        page.items,
        {
          href: (found) =>
            found.kind === 'posts'
              ? `/app/days/${dayOf(ms(found), timezone)}#post-${found.id}`
              : found.kind === 'media'
                ? `/app/media/${found.id}`
                : `/app/places#place-${found.id}`,
          time: (found) =>
            html`<time datetime="${new Date(ms(found)).toISOString()}"
              >${dayOf(ms(found), timezone)} ${clockOf(ms(found), timezone)}</time
            >`,
          kindLabel: (found) =>
            'mime_type' in found.item ? (MEDIUM_LABEL[found.item.kind] ?? 'File') : KIND_LABEL[found.kind],
        },
        q,
      )}
      ${page.next ? html`<p class="load-more"><a class="button secondary" href="/app/search?${next.toString()}">More results</a></p>` : ''}
      <p class="meta">Times are in ${timezone}.</p>`;
    return { body };
  },
};
