// Media: a grid of thumbnails, newest first, with "load more", and a viewer per medium with playback,
// Previous and Next (arrow keys, swipes), the original to download, where it was taken on a small
// map (exact: this is the owner's page), its caption and scope to edit, and delete.
import { html, type Html } from '../lib/html.ts';
import { getMedium } from '../media/media.logic.ts';
import { type Medium } from '../media/media.schemas.ts';
import { deleteButton } from './buttons.html.ts';
import { checkedId, mediumAlt, scopeBadge } from './items.html.ts';
import { loadOwnItems } from './own-items.ts';
import type { AppPage } from './page.ts';
import { searchBox } from './search.html.ts';
import { neighbourIds } from '../media/media.viewer.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { mapPolicy } from './map/map-policy.ts';
import { readableTime } from './time.ts';
import { downloadName, mediumPlayer, placeMap, placeMapAssets, viewerNav } from './viewer.html.ts';

const KIND_LABEL: Record<string, string> = { image: 'Photo', video: 'Video', audio: 'Audio', other: 'File' };

export const mediaPage: AppPage = {
  path: '/app/media',
  title: 'Media',
  scripts: ['media.js'],
  render: async (ctx) => {
    // Public and private in one grid: the owner's media read as two collections and merged as the
    // timeline merges them, so "load more" (`?before=`) skips nothing and repeats nothing.
    const { before, cursor, scope } = ctx.request.query as Record<string, string | undefined>;
    const { timezone } = await getSettings(ctx.db, ctx.viewer.id);
    const { entries, more } = await loadOwnItems(
      ctx,
      { kind: 'media', before, cursor, scope },
      timezone,
      '/app/media',
      60,
    );
    const media = entries.flatMap((e) => (e.kind === 'media' ? [e.item] : []));
    const body = html`<h1>Media</h1>
      ${searchBox({ action: '/app/search', label: 'Search your media by caption', hidden: { kind: 'media' } })}
      <p><a href="/app/compose">Upload with a new post</a></p>
      ${
        media.length === 0
          ? html`<p>No photos, videos or audio yet.</p>`
          : html`<ul class="grid" aria-label="Your media">
              ${media.map((m) => mediumTile(m, timezone))}
            </ul>`
      }
      ${more ? html`<p class="load-more"><a class="button secondary" href="${more}" data-more>Load more</a></p>` : ''}`;
    return { body };
  },
};

function mediumTile(m: Medium, timeZone: string): Html {
  return html`<li>
    <a href="/app/media/${m.id}">
      ${
        m.thumbnail_url
          ? html`<img src="/media/id/${m.id}/thumbnail" alt="${mediumAlt(m, timeZone)}" loading="lazy" />`
          : html`<span class="placeholder">${mediumAlt(m, timeZone)}</span>`
      }
      <span class="kind">${KIND_LABEL[m.kind] ?? 'File'}${m.scope === 'private' ? ' · private' : ''}</span>
    </a>
  </li>`;
}

export const mediumPage: AppPage = {
  path: '/app/media/:id',
  nav: '/app/media',
  title: 'Medium',
  narrow: true,
  scripts: ['viewer.js'],
  render: async (ctx) => {
    const { id } = ctx.request.params as { id: string };
    const m = await getMedium(ctx.db, ctx.config.baseUrl, checkedId(id), ctx.auth);
    const [{ timezone }, around] = await Promise.all([
      getSettings(ctx.db, ctx.viewer.id),
      neighbourIds(ctx.db, ctx.viewer.id, m, 'all'),
    ]);
    const file = `/media/id/${m.id}/file`;
    const href = (other: string | undefined) => (other ? `/app/media/${other}` : undefined);
    // The small map's basemap comes from the map's policy (docs/maps.md).
    if (m.location) void ctx.reply.headers(mapPolicy(ctx.config));
    const body = html`<h1>${KIND_LABEL[m.kind] ?? 'File'} ${scopeBadge(m.scope)}</h1>
      <div class="viewer" data-item>${mediumPlayer(m, file, mediumAlt(m, timezone))}</div>
      ${viewerNav({ newer: href(around.newer), older: href(around.older) })}
      <p class="meta">
        ${m.mime_type}, ${((m.size ?? 0) / 1e6).toFixed(1)}
        MB${m.width ? `, ${m.width} × ${m.height}` : ''}${m.duration ? `, ${Math.round(m.duration)} s` : ''} · taken
        <time datetime="${new Date(m.time * 1000).toISOString()}">${readableTime(m.time, timezone)}</time>
        (${timezone})${
          m.scope === 'public'
            ? html` · <a href="/@${encodeURIComponent(ctx.viewer.username)}/media/${m.id}">Its public page</a>`
            : ''
        }
      </p>
      <p>
        <a class="button secondary" href="${file}" download="${downloadName(m)}">Download the original</a>
        <span class="help">with its metadata (camera, time, place); strangers only ever get a copy without it.</span>
      </p>
      ${placeMap(ctx.config, m.location, true)}
      <form data-api="POST /media/id/${m.id}" data-done="reload" class="card">
        <label for="caption">Caption (the alt text)</label>
        <input id="caption" name="caption" maxlength="2000" value="${m.caption}" />
        <fieldset>
          <legend>Who can see it</legend>
          <label class="inline"
            ><input type="radio" name="scope" value="public" ${m.scope === 'public' ? html`checked` : ''} />
            Public</label
          >
          <label class="inline"
            ><input type="radio" name="scope" value="private" ${m.scope === 'private' ? html`checked` : ''} />
            Private</label
          >
        </fieldset>
        <button type="submit">Save</button>
      </form>
      <p>
        ${deleteButton({
          path: `/media/id/${m.id}`,
          confirm: 'Delete this file for good?',
          what: 'this file',
          then: '/app/media',
          large: true,
        })}
        <a href="/app/media">Back to media</a>
      </p>`;
    return {
      body,
      title: m.caption || (KIND_LABEL[m.kind] ?? 'File'),
      ...(m.location ? { head: placeMapAssets() } : {}),
    };
  },
};
