// The HTML of a person's public pages: plain markup that works without scripts, microformats2
// for IndieWeb readers (h-card, h-feed, h-entry), OpenGraph and Twitter card meta for link
// previews, and feed autodiscovery (docs/web-public.md).
import type { MapStyle } from '../../config.ts';
import { textToHtml } from '../../posts/posts.feeds.ts';
import { html, Html } from '../../lib/html.ts';
import { layout } from '../layout.ts';
import { readableTime } from '../time.ts';
import { hashtagsIn } from '../../search/hashtags.ts';
import { coordinate, placeName } from '../viewer.html.ts';
import { mapFolderUrl } from '../assets.ts';
import type { Entry, Person, PublicMedium } from './profile.logic.ts';
import { searchBox } from '../search.html.ts';

export interface PersonLinks {
  profile: string;
  atom: string;
  jsonFeed: string;
  geojson: string;
  tiles: string;
}

export function personLinks(baseUrl: string, username: string): PersonLinks {
  const name = encodeURIComponent(username);
  return {
    profile: `${baseUrl}/@${name}`,
    atom: `${baseUrl}/posts/public/${name}?format=atom`,
    jsonFeed: `${baseUrl}/posts/public/${name}?format=jsonfeed`,
    geojson: `${baseUrl}/locations/public/${name}?format=geojson`,
    tiles: `/locations/public/${name}/tiles/{z}/{x}/{y}.mvt`,
  };
}

export function postUrl(baseUrl: string, username: string, id: string): string {
  return `${baseUrl}/@${encodeURIComponent(username)}/${encodeURIComponent(id)}`;
}

/** The box of the person's public search (src/web/profile/search.html.ts). */
export function publicSearchBox(baseUrl: string, person: Person, q = '') {
  return searchBox({
    action: `${personLinks(baseUrl, person.username).profile}/search`,
    label: `Search ${person.displayName}'s posts and media`,
    q,
  });
}

/** An instant on the person's clock, with the zone's short name (docs/web-public.md "Times and places"). */
export function personTime(person: Person, seconds: number): Html {
  return html`<time datetime="${new Date(seconds * 1000).toISOString()}"
    >${readableTime(seconds, person.timezone)}</time
  >`;
}

/** What a page of the person's items says of its times. */
export function zoneNote(person: Person): Html {
  return html`<p class="meta zone-note">Times are in ${person.timezone}, ${person.displayName}'s time zone.</p>`;
}

export function tagUrl(baseUrl: string, username: string, tag: string): string {
  return `${baseUrl}/@${encodeURIComponent(username)}/tagged/${encodeURIComponent(tag)}`;
}

/** A post's text as HTML: escaped, line breaks kept, each #tag a link to the person's posts with that tag. */
export function postTextHtml(baseUrl: string, person: Person, text: string): Html {
  const parts: Html[] = [];
  let at = 0;
  for (const found of hashtagsIn(text)) {
    parts.push(new Html(textToHtml(text.slice(at, found.start))));
    parts.push(
      html`<a class="hashtag" rel="tag" href="${tagUrl(baseUrl, person.username, found.tag)}">#${found.tag}</a>`,
    );
    at = found.end;
  }
  parts.push(new Html(textToHtml(text.slice(at))));
  return html`${parts}`;
}

/**
 * Where a public item is shown: its town and country (found offline, src/places/label.ts) from
 * the place strangers are given (rounded, never in a privacy zone: the item's own `location`
 * as the public read made it), with that place as an h-geo. Nothing for an item without one.
 */
export function placeHtml(location: { lat: number; lon: number } | null): Html {
  if (!location) return html``;
  const name = placeName(location);
  const lat = coordinate(location.lat);
  const lon = coordinate(location.lon);
  return html`<span class="place p-location h-geo"
    >${name ? html`near <span class="p-name">${name}</span> ` : ''}<span class="coords"
      >(<data class="p-latitude" value="${location.lat}">${lat}</data>,
      <data class="p-longitude" value="${location.lon}">${lon}</data>)</span
    ></span
  >`;
}

/** A short plain-text summary for link previews. */
function summary(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

interface Meta {
  title: string;
  description: string;
  url: string;
  type: 'profile' | 'article';
  image?: { url: string; alt: string } | undefined;
  extra?: Html;
}

function metaTags(meta: Meta): Html {
  return html`<meta name="description" content="${meta.description}" />
    <meta property="og:site_name" content="Waypost" />
    <meta property="og:type" content="${meta.type}" />
    <meta property="og:title" content="${meta.title}" />
    <meta property="og:description" content="${meta.description}" />
    <meta property="og:url" content="${meta.url}" />
    ${
      meta.image
        ? html`<meta property="og:image" content="${meta.image.url}" />
            <meta property="og:image:alt" content="${meta.image.alt}" />
            <meta name="twitter:image" content="${meta.image.url}" />
            <meta name="twitter:image:alt" content="${meta.image.alt}" />`
        : ''
    }
    <meta name="twitter:card" content="${meta.image ? 'summary_large_image' : 'summary'}" />
    <meta name="twitter:title" content="${meta.title}" />
    <meta name="twitter:description" content="${meta.description}" />
    ${meta.extra ?? ''}`;
}

function feedLinks(person: Person, links: PersonLinks): Html {
  return html`<link
      rel="alternate"
      type="application/atom+xml"
      title="${person.displayName} (Atom)"
      href="${links.atom}"
    />
    <link
      rel="alternate"
      type="application/feed+json"
      title="${person.displayName} (JSON Feed)"
      href="${links.jsonFeed}"
    />
    <link
      rel="alternate"
      type="application/geo+json"
      title="${person.displayName}'s places (GeoJSON)"
      href="${links.geojson}"
    />`;
}

/** A whole public page, in the web app's layout as a visitor sees it (the bar offers to sign in). */
export function publicPage({ title, head, body }: { title: string; head: Html; body: Html }): string {
  return layout({ title, head, body, styles: ['public.css'] });
}

export function mediumPageUrl(baseUrl: string, username: string, id: string): string {
  return `${baseUrl}/@${encodeURIComponent(username)}/media/${encodeURIComponent(id)}`;
}

function mediumHtml(baseUrl: string, person: Person, medium: PublicMedium): Html {
  const alt = medium.caption || 'A photo without a caption';
  if (medium.kind === 'image') {
    // The photo opens in the viewer (docs/web-public.md "The media viewer"); the file itself is the u-photo.
    const size = medium.width && medium.height ? html` width="${medium.width}" height="${medium.height}"` : '';
    return html`<a href="${mediumPageUrl(baseUrl, person.username, medium.id)}"
        ><img src="${medium.thumbnailUrl ?? medium.url}" alt="${alt}" loading="lazy" ${size} /></a
      ><data class="u-photo" value="${medium.url}"></data>`;
  }
  const label = medium.caption || (medium.kind === 'video' ? 'A video without a caption' : 'A sound without a caption');
  if (medium.kind === 'video') {
    return html`<figure class="wide">
      <video
        class="u-video"
        controls
        preload="none"
        src="${medium.url}"
        ${medium.thumbnailUrl ? html`poster="${medium.thumbnailUrl}"` : ''}
        aria-label="${label}"
      >
        <a href="${medium.url}">Download the video</a>
      </video>
      ${medium.caption ? html`<figcaption>${medium.caption}</figcaption>` : ''}
    </figure>`;
  }
  if (medium.kind === 'audio') {
    return html`<figure class="wide">
      <audio class="u-audio" controls preload="none" src="${medium.url}" aria-label="${label}">
        <a href="${medium.url}">Download the sound</a>
      </audio>
      ${medium.caption ? html`<figcaption>${medium.caption}</figcaption>` : ''}
    </figure>`;
  }
  return html`<a class="wide" href="${medium.url}">${medium.caption || 'An attached file'}</a>`;
}

export function entryHtml(baseUrl: string, person: Person, entry: Entry, heading: 'h2' | 'h1'): Html {
  const { post, media } = entry;
  const url = postUrl(baseUrl, person.username, post.id);
  const published = new Date(post.time * 1000).toISOString();
  const time = html`<a class="u-url u-uid" href="${url}"
    ><time class="dt-published" datetime="${published}">${readableTime(post.time, person.timezone)}</time></a
  >`;
  return html`<article class="entry h-entry">
    ${heading === 'h1' ? html`<h1 class="visually-hidden">A post by ${person.displayName}</h1>` : ''}
    <div class="text e-content">${postTextHtml(baseUrl, person, post.text)}</div>
    ${media.length > 0 ? html`<div class="media">${media.map((medium) => mediumHtml(baseUrl, person, medium))}</div>` : ''}
    <footer>
      ${time} · ${post.location ? html`${placeHtml(post.location)} · ` : ''}
      <a class="p-author h-card" href="${baseUrl}/@${encodeURIComponent(person.username)}">${person.displayName}</a>
    </footer>
  </article>`;
}

function mapSection(
  person: Person,
  links: PersonLinks,
  basemap: MapStyle,
  place: { lat: number; lon: number } | undefined,
): Html {
  if (!place) {
    return html`<section aria-labelledby="places">
      <h2 id="places">Places</h2>
      <p class="empty">${person.displayName} has no public places yet.</p>
    </section>`;
  }
  return html`<section aria-labelledby="places">
    <h2 id="places">Places</h2>
    <div
      class="map"
      role="region"
      aria-label="Map of ${person.displayName}'s public places"
      data-waypost-map
      data-tiles="${links.tiles}"
      data-basemap="${JSON.stringify(basemap)}"
      data-center="${place.lon},${place.lat}"
      data-zoom="11"
      data-zone="${person.timezone}"
    ></div>
    <noscript
      ><p>The map needs JavaScript. The same places are in <a href="${links.geojson}">GeoJSON</a>.</p></noscript
    >
  </section>`;
}

function mapAssets(): Html {
  return html`<link rel="stylesheet" href="${mapFolderUrl('maplibre-gl.css')}" />
    <script type="module" src="${mapFolderUrl('waypost-map.js')}"></script>`;
}

export interface ProfileView {
  baseUrl: string;
  person: Person;
  entries: Entry[];
  /** The URL of the next (older) page, when there is one. */
  next: string | undefined;
  /** Whether this is a later page (opened with a cursor). */
  later: boolean;
  place: { lat: number; lon: number } | undefined;
  basemap: MapStyle;
}

export function profileHtml(view: ProfileView): string {
  const { baseUrl, person, entries } = view;
  const links = personLinks(baseUrl, person.username);
  const firstImage = entries.flatMap((entry) => entry.media).find((medium) => medium.kind === 'image');
  const head = html`${metaTags({
    title: `${person.displayName} (@${person.username})`,
    description: summary(person.bio) || `${person.displayName}'s posts and places on Waypost.`,
    url: links.profile,
    type: 'profile',
    image: firstImage ? { url: firstImage.url, alt: firstImage.caption || 'A photo without a caption' } : undefined,
    extra: html`<meta property="profile:username" content="${person.username}" />`,
  })}
  ${view.later ? '' : html`<link rel="canonical" href="${links.profile}" />`}
  ${view.next ? html`<link rel="next" href="${view.next}" />` : ''} ${feedLinks(person, links)}
  ${view.place && !view.later ? mapAssets() : ''}`;
  const body = html`<header class="person h-card">
      <h1><a class="p-name u-url u-uid" href="${links.profile}">${person.displayName}</a></h1>
      <p class="handle">@<span class="p-nickname">${person.username}</span></p>
      ${person.bio ? html`<p class="bio p-note">${person.bio}</p>` : ''}
      <ul class="feeds" aria-label="Follow">
        <li><a href="${links.atom}">Atom feed</a></li>
        <li><a href="${links.jsonFeed}">JSON Feed</a></li>
        <li><a href="${links.geojson}">Places as GeoJSON</a></li>
      </ul>
      ${publicSearchBox(baseUrl, person)}
    </header>
    ${view.later ? '' : mapSection(person, links, view.basemap, view.place)}
    <section class="h-feed" aria-labelledby="posts">
      <h2 id="posts" class="p-name">${view.later ? 'Older posts' : 'Posts'}</h2>
      ${entries.length === 0 ? html`<p class="empty">No public posts${view.later ? ' before these' : ' yet'}.</p>` : zoneNote(person)}
      ${entries.map((entry) => entryHtml(baseUrl, person, entry, 'h2'))}
    </section>
    <nav class="pager" aria-label="More posts">
      ${view.later ? html`<a href="${links.profile}">Newest posts</a>` : html`<span></span>`}
      ${view.next ? html`<a href="${view.next}" rel="next">Older posts</a>` : ''}
    </nav>`;
  return publicPage({ title: `${person.displayName} (@${person.username})`, head, body });
}

export function postHtml(baseUrl: string, person: Person, entry: Entry): string {
  const links = personLinks(baseUrl, person.username);
  const url = postUrl(baseUrl, person.username, entry.post.id);
  const image = entry.media.find((medium) => medium.kind === 'image');
  const head = html`${metaTags({
      title: `${person.displayName}: ${summary(entry.post.text, 70)}`,
      description: summary(entry.post.text),
      url,
      type: 'article',
      image: image ? { url: image.url, alt: image.caption || 'A photo without a caption' } : undefined,
      extra: html`<meta property="article:published_time" content="${new Date(entry.post.time * 1000).toISOString()}" />
        <meta property="article:author" content="${links.profile}" />`,
    })}
    <link rel="canonical" href="${url}" />
    ${feedLinks(person, links)}`;
  const body = html`${entryHtml(baseUrl, person, entry, 'h1')} ${zoneNote(person)}
    <p><a href="${links.profile}">More from ${person.displayName}</a></p>`;
  return publicPage({ title: `${person.displayName}: ${summary(entry.post.text, 70)}`, head, body });
}

/** One page for every public page that is not there: unknown person, missing or private post. */
export function notFoundHtml(): string {
  return publicPage({
    title: 'Not found',
    head: html`<meta name="robots" content="noindex" />`,
    body: html`<h1>Not found</h1>
      <p>There is no public page here. It may never have existed, or it is not public.</p>`,
  });
}

/** A page address that cannot be read (a cursor this server did not make). */
export function badRequestHtml(message: string): string {
  return publicPage({
    title: 'Not a page',
    head: html`<meta name="robots" content="noindex" />`,
    body: html`<h1>This address is not a page</h1>
      <p>${message}</p>`,
  });
}
