// Public posts as feeds (docs/api.md "Collections"), so a feed reader can follow a person: Atom
// (RFC 4287) and JSON Feed, written by the `feed` library.
import { Feed } from 'feed';
import { chosenFormat, type Rendered } from '../items/kinds.ts';
import { escapeHtml } from '../lib/html.ts';
import { feedUrls } from '../users/public-urls.ts';
import type { Post, PostsParams } from './posts.schemas.ts';

export const ATOM = 'application/atom+xml';
export const JSON_FEED = 'application/feed+json';

const BY_ACCEPT = [
  [ATOM, 'atom'],
  [JSON_FEED, 'jsonfeed'],
] as const;

/** A feed title: the first line, shortened; Atom requires one per entry. */
function titleOf(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Posts are plain text; feeds carry HTML, so the text is escaped and its line breaks kept. */
export function textToHtml(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>\n');
}

type FeedFormat = (typeof BY_ACCEPT)[number][1];

/**
 * The `feed` library writes every Atom entry's title as `<title type="html">` (RFC 4287 3.1.1.2:
 * escaped HTML) and in CDATA, so the title is escaped as HTML there, as the content is; JSON Feed
 * 1.1's `title` is plain text and is left as it is. Escaping also keeps a `]]>` in a post from
 * ending the CDATA section.
 */
export function buildFeed(baseUrl: string, username: string, posts: Post[], format: FeedFormat): Feed {
  const urls = feedUrls(baseUrl, username);
  const profile = `${baseUrl}/users/${encodeURIComponent(username)}`;
  const feed = new Feed({
    id: profile,
    title: `${username} on Waypost`,
    link: profile,
    updated: new Date((posts[0]?.time ?? 0) * 1000),
    generator: 'Waypost',
    feedLinks: { atom: urls.atom, json: urls.json_feed },
    author: { name: username, link: profile },
  });
  for (const post of posts) {
    const url = `${baseUrl}/posts/id/${post.id}`;
    feed.addItem({
      title: format === 'atom' ? escapeHtml(titleOf(post.text)) : titleOf(post.text),
      id: url,
      link: url,
      date: new Date(post.time * 1000),
      published: new Date(post.time * 1000),
      content: textToHtml(post.text),
    });
  }
  return feed;
}

export async function renderPosts(
  accept: string | undefined,
  posts: Post[],
  params: PostsParams,
  baseUrl: string,
  username: string,
): Promise<Rendered | undefined> {
  const format = chosenFormat(accept, params.format, BY_ACCEPT);
  if (format === 'atom')
    return { type: `${ATOM}; charset=utf-8`, body: buildFeed(baseUrl, username, posts, format).atom1() };
  if (format === 'jsonfeed') return { type: JSON_FEED, body: buildFeed(baseUrl, username, posts, format).json1() };
  return undefined;
}
