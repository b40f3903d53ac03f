// Two more of a person's public pages (docs/web-public.md): a public medium in the viewer
// (`/@<username>/media/<id>`), and the public posts with one hashtag (`/@<username>/tagged/<tag>`).
// Both show only what the public collections show, as strangers see it, the same to every reader.
import type { Config } from '../../config.ts';
import { html } from '../../lib/html.ts';
import type { Medium } from '../../media/media.schemas.ts';
import { assetUrl } from '../assets.ts';
import { downloadName, mediumPlayer, placeMap, placeMapAssets, viewerNav } from '../viewer.html.ts';
import { entryHtml, mediumPageUrl, personLinks, personTime, publicPage, tagUrl, zoneNote } from './profile.html.ts';
import type { Entry, Person } from './profile.logic.ts';

export interface PublicMediumView {
  config: Config;
  person: Person;
  medium: Medium;
  newer: string | undefined;
  older: string | undefined;
}

export function publicMediumHtml({ config, person, medium, newer, older }: PublicMediumView): string {
  const { baseUrl } = config;
  const links = personLinks(baseUrl, person.username);
  const href = (id: string | undefined) => (id ? mediumPageUrl(baseUrl, person.username, id) : undefined);
  const what = medium.kind === 'image' ? 'A photo' : medium.kind === 'video' ? 'A video' : 'A file';
  const alt = medium.caption || `${what} without a caption`;
  const head = html`<link rel="canonical" href="${href(medium.id)}" />
    <script type="module" src="${assetUrl('viewer.js')}"></script>
    ${medium.location ? placeMapAssets() : ''}`;
  const body = html`<h1>${what} by <a href="${links.profile}">${person.displayName}</a></h1>
    <div class="viewer">${mediumPlayer(medium, medium.url, alt)}</div>
    ${medium.caption ? html`<p class="caption">${medium.caption}</p>` : ''}
    ${viewerNav({ newer: href(newer), older: href(older) })}
    <p class="meta">Taken ${personTime(person, medium.time)}</p>
    ${zoneNote(person)}
    <p>
      <a class="button secondary" href="${medium.url}" download="${downloadName(medium)}">Download</a>
      <span class="help">the file as shared, without its metadata (camera, time, place).</span>
    </p>
    ${placeMap(config, medium.location, false)}
    <p><a href="${links.profile}">More from ${person.displayName}</a></p>`;
  return publicPage({ title: `${alt} (${person.displayName})`, head, body });
}

export interface TaggedView {
  baseUrl: string;
  person: Person;
  tag: string;
  entries: Entry[];
  next: string | undefined;
  /** Whether this is a later page (opened with a cursor). */
  later: boolean;
}

export function taggedHtml({ baseUrl, person, tag, entries, next, later }: TaggedView): string {
  const links = personLinks(baseUrl, person.username);
  const here = tagUrl(baseUrl, person.username, tag);
  const body = html`<h1>#${tag}</h1>
    <p>${person.displayName}'s public posts with <strong>#${tag}</strong>, newest first.</p>
    <section class="h-feed" aria-labelledby="tagged-posts">
      <h2 id="tagged-posts" class="visually-hidden">Posts with #${tag}</h2>
      ${entries.length === 0 ? html`<p class="empty">No public posts with #${tag}${later ? ' before these' : ''}.</p>` : zoneNote(person)}
      ${entries.map((entry) => entryHtml(baseUrl, person, entry, 'h2'))}
    </section>
    <nav class="pager" aria-label="More posts">
      ${later ? html`<a href="${here}">Newest posts with #${tag}</a>` : html`<a href="${links.profile}">All of ${person.displayName}'s posts</a>`}
      ${next ? html`<a href="${next}" rel="next">Older posts</a>` : ''}
    </nav>`;
  return publicPage({
    title: `#${tag} (${person.displayName})`,
    head: html`${later ? '' : html`<link rel="canonical" href="${here}" />`}`,
    body,
  });
}
