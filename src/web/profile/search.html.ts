// A person's public search page (`/@<username>/search?q=…`, docs/web-public.md): the box and the
// results of `GET /search/public/<username>`, read through the same function, so only public
// posts and media, shown as strangers see them. A post links to its public page, a medium to its
// viewer (public media only, as everywhere).
import { html } from '../../lib/html.ts';
import type { Found } from '../../search/search.logic.ts';
import { searchResults } from '../search.html.ts';
import {
  mediumPageUrl,
  personLinks,
  personTime,
  postUrl,
  publicPage,
  publicSearchBox,
  zoneNote,
} from './profile.html.ts';
import type { Person } from './profile.logic.ts';

export interface PublicSearchView {
  baseUrl: string;
  person: Person;
  q: string;
  /** The results, or none when nothing was asked yet. */
  found: Found[] | undefined;
  /** The URL of the next page of results, when there is one. */
  next: string | undefined;
}

export function publicSearchHtml({ baseUrl, person, q, found, next }: PublicSearchView): string {
  const links = personLinks(baseUrl, person.username);
  const body = html`<h1>Search ${person.displayName}'s posts</h1>
    ${publicSearchBox(baseUrl, person, q)}
    ${
      found
        ? searchResults(
            found,
            {
              href: (result) =>
                result.kind === 'posts'
                  ? postUrl(baseUrl, person.username, result.id)
                  : result.kind === 'media'
                    ? mediumPageUrl(baseUrl, person.username, result.id)
                    : links.profile,
              time: (result) => personTime(person, result.time),
            },
            q,
          )
        : ''
    }
    ${found && found.length > 0 ? zoneNote(person) : ''}
    <nav class="pager" aria-label="More results">
      <a href="${links.profile}">Back to ${person.displayName}</a>
      ${next ? html`<a href="${next}" rel="next">More results</a>` : ''}
    </nav>`;
  return publicPage({
    title: `Search ${person.displayName} (@${person.username})`,
    head: html`<meta name="robots" content="noindex" />`,
    body,
  });
}
