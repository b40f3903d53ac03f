// What the two media viewers share (the owner's `/app/media/<id>`, and a person's public
// `/@<username>/media/<id>`; docs/web-public.md "The media viewer"): the player, Previous and
// Next links (viewer.js adds the arrow keys and swipes), the download link and the small map at
// the place the medium was taken, given as the reader may see it.
import type { Config } from '../config.ts';
import { html, type Html } from '../lib/html.ts';
import type { Medium } from '../media/media.schemas.ts';
import { labelOf } from '../places/label.ts';
import { mapFolderUrl } from './assets.ts';

/** A coordinate as the pages write it: at most six decimals (about 10 cm), as public places are cut. */
export const coordinate = (degrees: number): string => String(Number(degrees.toFixed(6)));

/** A place in words: its town and country, found offline (src/places/label.ts), or '' in open sea. */
export function placeName(location: { lat: number; lon: number }): string {
  const label = labelOf(location.lat, location.lon);
  return [label.city, label.countryName].filter(Boolean).join(', ');
}

/** The medium shown as it plays: the image, a player, or a link to the file. */
export function mediumPlayer(medium: Pick<Medium, 'id' | 'kind'>, file: string, alt: string): Html {
  if (medium.kind === 'image') return html`<img src="${file}" alt="${alt}" />`;
  if (medium.kind === 'video')
    return html`<video src="${file}" controls preload="metadata" aria-label="${alt}"></video>`;
  if (medium.kind === 'audio')
    return html`<audio src="${file}" controls preload="metadata" aria-label="${alt}"></audio>`;
  return html`<p><a href="${file}">Open the file</a></p>`;
}

/**
 * Previous (newer) and Next (older), in the order of the grid, newest first. viewer.js follows
 * them on the arrow keys and on a swipe; without scripts they are plain links.
 */
export function viewerNav(links: { newer: string | undefined; older: string | undefined }): Html {
  return html`<nav class="viewer-nav" aria-label="Other media">
      ${
        links.newer
          ? html`<a class="button secondary" rel="prev" href="${links.newer}" data-viewer-prev
              ><span aria-hidden="true">←</span> Previous</a
            >`
          : html`<span class="meta">This is the newest.</span>`
      }
      ${
        links.older
          ? html`<a class="button secondary" rel="next" href="${links.older}" data-viewer-next
              >Next <span aria-hidden="true">→</span></a
            >`
          : html`<span class="meta">This is the oldest.</span>`
      }
    </nav>
    <p class="help viewer-keys">Arrow keys ← and →, or a swipe on the picture, go to the previous and the next.</p>`;
}

/** The file's name for the download: its id and the extension its type usually has. */
export function downloadName(medium: Pick<Medium, 'id' | 'mime_type'>): string {
  const subtype = medium.mime_type.split('/')[1]?.split(/[;+]/)[0] ?? '';
  const extension =
    subtype === 'jpeg' ? 'jpg' : subtype === 'quicktime' ? 'mov' : /^[a-z0-9]{1,8}$/.test(subtype) ? subtype : 'bin';
  return `${medium.id}.${extension}`;
}

/**
 * Where the medium was taken, on a small map (no tiles: one marker), at `location` as the reader
 * is given it; and in words. `exact`: the owner's own place; else strangers' (rounded, and none
 * in a privacy zone: then `location` is null and nothing is shown).
 */
export function placeMap(config: Config, location: { lat: number; lon: number } | null, exact: boolean): Html {
  if (!location) return html``;
  const at = `${coordinate(location.lon)},${coordinate(location.lat)}`;
  const name = placeName(location);
  return html`<section class="viewer-place" aria-labelledby="viewer-place-title">
    <h2 id="viewer-place-title">Where it was taken</h2>
    <p class="meta place-line">
      ${name ? `Near ${name} ` : ''}(${coordinate(location.lat)},
      ${coordinate(location.lon)})${exact ? ': the exact place, which only you see.' : ''}
    </p>
    <div
      class="map map-small"
      role="region"
      aria-label="Map of where it was taken"
      data-waypost-map
      data-basemap="${JSON.stringify(config.mapStyle)}"
      data-center="${at}"
      data-zoom="${exact ? '15' : '12'}"
      data-marker="${at}"
    ></div>
  </section>`;
}

/** The map's script and stylesheet, for a viewer with a place. */
export function placeMapAssets(): Html {
  return html`<link rel="stylesheet" href="${mapFolderUrl('maplibre-gl.css')}" />
    <script type="module" src="${mapFolderUrl('waypost-map.js')}"></script>`;
}
