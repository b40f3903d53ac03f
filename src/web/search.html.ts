// The search box and a list of results, shared by the signed-in pages (src/web/search.page.ts)
// and the public profile (src/web/profile/): a plain GET form, so searching works without
// scripts. A result shows its kind, its time and its snippet; the snippet's text is escaped here
// like every text on a page, and only the matched words are wrapped in <mark>.
import { html, type Html } from '../lib/html.ts';
import type { Found } from '../search/search.logic.ts';
import type { SnippetPart } from '../search/search.snippet.ts';

export interface SearchBox {
  /** Where the form goes (GET). */
  action: string;
  /** What the box says it searches, e.g. "Search your posts, media and places". */
  label: string;
  q?: string | undefined;
  /** Hidden fields sent along (a page's own filter, e.g. kind=media). */
  hidden?: Record<string, string>;
}

export function searchBox(box: SearchBox): Html {
  return html`<form class="search" role="search" method="get" action="${box.action}">
    <label for="search-q">${box.label}</label>
    <div class="row">
      <input
        id="search-q"
        type="search"
        name="q"
        value="${box.q ?? ''}"
        maxlength="500"
        required
        aria-describedby="search-help"
      />
      ${Object.entries(box.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
      <button type="submit">Search</button>
    </div>
    <p class="help" id="search-help">All words must match. "Quoted words" for a phrase, marath* for a prefix.</p>
  </form>`;
}

export function snippetHtml(parts: readonly SnippetPart[]): Html {
  return html`${parts.map((part) => (part.match ? html`<mark>${part.text}</mark>` : part.text))}`;
}

const KIND_LABEL = { posts: 'Post', media: 'Medium', places: 'Place' } as const;

/** How a result is shown: where it links, and its time as text. */
export interface ResultView {
  href(found: Found): string;
  time(found: Found): Html;
  /** A medium's kind in words ("Photo"), else the result's kind. */
  kindLabel?(found: Found): string;
}

export function searchResults(list: readonly Found[], view: ResultView, q: string): Html {
  if (list.length === 0) return html`<p class="empty" role="status">Nothing matches “${q}”.</p>`;
  return html`<ol class="results" aria-label="Results for ${q}">
    ${list.map(
      (found) =>
        html`<li class="card result">
          <p class="meta">${view.kindLabel?.(found) ?? KIND_LABEL[found.kind]} · ${view.time(found)}</p>
          <p class="snippet"><a href="${view.href(found)}">${snippetHtml(found.parts)}</a></p>
        </li>`,
    )}
  </ol>`;
}
