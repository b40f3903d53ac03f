// Pieces of HTML the pages share for items.
import { html, type Html } from '../lib/html.ts';
import { fieldError, invalid } from '../core/errors.ts';
import { IdParams, type Scope } from '../items/items.schemas.ts';
import type { Medium } from '../media/media.schemas.ts';
import { dayOf } from './time.ts';

export function scopeBadge(scope: Scope): Html {
  return html`<span class="badge ${scope}">${scope === 'public' ? 'Public' : 'Private'}</span>`;
}

/** Alt text: the caption, else what it is and the day it was taken on the owner's clock. */
export function mediumAlt(medium: Medium, timeZone: string): string {
  if (medium.caption.trim()) return medium.caption;
  const what =
    medium.kind === 'image' ? 'Photo' : medium.kind === 'video' ? 'Video' : medium.kind === 'audio' ? 'Audio' : 'File';
  return `${what} without a caption, from ${dayOf(Math.round(medium.time * 1000), timeZone)}`;
}

/** The media a post names, as thumbnails linking to the viewer. */
export function itemMedia(ids: readonly string[], media: ReadonlyMap<string, Medium>, timeZone: string): Html {
  if (ids.length === 0) return html``;
  return html`<div class="thumbs">
    ${ids.map((id) => {
      const medium = media.get(id);
      if (!medium) return html`<a href="/app/media/${id}">Attached file</a>`;
      return html`<a href="/app/media/${id}"
        >${
          medium.thumbnail_url
            ? html`<img src="/media/id/${id}/thumbnail" alt="${mediumAlt(medium, timeZone)}" loading="lazy" />`
            : html`<span>${mediumAlt(medium, timeZone)}</span>`
        }</a
      >`;
    })}
  </div>`;
}

/** An item's id from a page's path as GET /<kind>/id/<id> takes it (`IdParams`), refused in the words of its schema's check. */
export function checkedId(id: string): string {
  const { minLength, maxLength } = IdParams.properties.id as unknown as { minLength: number; maxLength: number };
  const length = [...id].length;
  const wrong =
    length < minLength
      ? `must NOT have fewer than ${minLength} characters`
      : length > maxLength
        ? `must NOT have more than ${maxLength} characters`
        : undefined;
  if (wrong) throw invalid('The request is invalid', [fieldError('params/id', wrong)]);
  return id;
}
