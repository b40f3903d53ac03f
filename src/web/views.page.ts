// Views: the saved filters (made from the timeline's "Save this filter as a view"), each with
// what it shows, the link of a public one to copy, and delete.
import { html } from '../lib/html.ts';
import { deleteButton } from './buttons.html.ts';
import { listViews } from '../views/views.logic.ts';
import type { AppPage } from './page.ts';

export const viewsPage: AppPage = {
  path: '/app/views',
  title: 'Views',
  narrow: true,
  scripts: ['views.js'],
  render: async (ctx) => {
    const views = await listViews(ctx.db, ctx.auth);
    const body = html`<h1>Views</h1>
      <p>
        A view is a saved filter. Make one from the <a href="/">timeline</a>'s "Save this filter as a view". A public
        view can be read by anyone with its link and only ever shows public items.
      </p>
      ${
        views.length === 0
          ? html`<p>No views yet.</p>`
          : html`<ul class="plain-list" aria-label="Your views">
              ${views.map((v) => {
                const link = `${ctx.config.baseUrl}/views/${v.id}`;
                const filters = Object.entries(v.filters)
                  .map(([k, value]) => `${k}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
                  .join('; ');
                return html`<li class="card" data-item>
                  <h2>
                    ${v.name} <span class="badge ${v.scope}">${v.scope === 'public' ? 'Public' : 'Private'}</span>
                  </h2>
                  ${v.description ? html`<p>${v.description}</p>` : ''}
                  <p class="meta">Shows ${v.kinds.join(', ')}${filters ? `; ${filters}` : ''}.</p>
                  ${
                    v.scope === 'public'
                      ? html`<div class="row">
                            <label>Link <input readonly value="${link}" data-skip /></label>
                            <button type="button" class="secondary" data-copy="${link}">Copy link</button>
                          </div>
                          <p class="copy-status help" role="status"></p>`
                      : ''
                  }
                  ${deleteButton({
                    path: `/views/${v.id}`,
                    confirm: `Delete the view ${v.name}? The items stay.`,
                    what: `the view ${v.name}`,
                  })}
                </li>`;
              })}
            </ul>`
      }`;
    return { body };
  },
};
