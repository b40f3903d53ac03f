// Reading a feed (docs/api.md "Bringing posts in"): RSS 2.0, Atom (RFC 4287) and JSON Feed 1.1,
// parsed by @extractus/feed-extractor (its XML parser is fast-xml-parser, with entity expansion
// bounded). The library finds the entries; each entry's fields are read here from the raw
// element, by the specifications, because the library's own summary shortens the content,
// strips it by pattern, rewrites links and invents ids.
import { extractFromJson, extractFromXml } from '@extractus/feed-extractor';
import { isObject, type JsonObject as Raw } from '../../lib/json.ts';
import { htmlToText, httpUrl, plainText, tidy } from './html-text.ts';
import { PollError, type Entry, type EntryImage } from './poller.ts';

/** Images taken from one entry at most. */
export const IMAGES_PER_ENTRY = 4;
/** Entries read from one feed at most; a feed shows its newest first. */
export const ENTRIES_MAX = 500;

const list = (value: unknown): unknown[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];

/** The text of an element the XML parser read: a string, or an object with `#text`. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (isObject(value)) return textOf(value['#text']);
  return '';
}

/** Milliseconds of a date the feed wrote (RFC 822 in RSS, RFC 3339 in Atom and JSON Feed). */
function timeOf(...values: unknown[]): number | null {
  for (const value of values) {
    const text = textOf(value).trim();
    if (!text) continue;
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  return null;
}

/**
 * What an Atom text construct or content element holds (RFC 4287 3.1, 4.1.3), kept unparsed by
 * the XML parser (a stop node): `text` is escaped text, `html` is escaped HTML, `xhtml` is
 * markup inside a div. CDATA sections hold their text as is.
 */
function xmlText(raw: string): string {
  return raw
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) =>
      part.startsWith('<![CDATA[')
        ? part.slice(9, -3)
        : part.replace(
            /&(?:#x([0-9a-f]+)|#(\d+)|(lt|gt|amp|quot|apos));/gi,
            (all, hex?: string, dec?: string, name?: string) => {
              if (hex || dec) {
                const code = hex ? parseInt(hex, 16) : Number(dec);
                return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
              }
              return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[name?.toLowerCase() ?? ''] ?? all;
            },
          ),
    )
    .join('');
}

function atomHtml(value: unknown): { html: string } | { text: string } | undefined {
  if (value === undefined) return undefined;
  const raw = textOf(value);
  const type = isObject(value) ? textOf(value['@_type']) : '';
  if (type === 'xhtml') return { html: raw };
  if (type === 'html' || type === 'text/html') return { html: xmlText(raw) };
  return { text: xmlText(raw) };
}

interface Parts {
  id: string;
  link: string | null;
  title: string;
  body: { html: string } | { text: string } | undefined;
  timeMs: number | null;
  images: EntryImage[];
}

/** Turns an entry's parts into an Entry: plain text, key, images (the content's first). */
function entryOf(parts: Parts, base: string): Entry | undefined {
  const key = parts.id.trim() || parts.link || '';
  if (!key) return undefined;
  const body =
    parts.body === undefined
      ? { text: '', images: [] }
      : 'html' in parts.body
        ? htmlToText(parts.body.html, base)
        : { text: tidy(parts.body.text), images: [] };
  const title = plainText(parts.title);
  // Microblog feeds repeat the start of the text as the title; it is said once.
  const squash = (text: string) =>
    text
      .replace(/\s+/g, ' ')
      .replace(/(\.\.\.|…)$/, '')
      .trim();
  const repeated = title !== '' && squash(body.text).startsWith(squash(title));
  const text = title && !repeated ? (body.text ? `${title}\n\n${body.text}` : title) : body.text;
  const seen = new Set<string>();
  const images = [...parts.images, ...body.images].filter((image) => !seen.has(image.url) && seen.add(image.url));
  return { key, url: parts.link, aliases: [], timeMs: parts.timeMs, text, images: images.slice(0, IMAGES_PER_ENTRY) };
}

function image(url: unknown, type: unknown, base: string, alt = ''): EntryImage[] {
  const href = httpUrl(textOf(url), base);
  const mime = textOf(type);
  return href && (mime === '' || mime.startsWith('image/')) ? [{ url: href, alt }] : [];
}

/** RSS 2.0 `<item>` (rssboard.org/rss-specification), with content:encoded and Media RSS. */
function rssItem(item: Raw, base: string): Parts {
  const guid = item.guid;
  const link = httpUrl(textOf(item.link), base);
  const permalink = isObject(guid) && textOf(guid['@_isPermaLink']) === 'false' ? null : httpUrl(textOf(guid), base);
  const encoded = textOf(item['content:encoded']);
  const description = textOf(item.description);
  const images = [
    ...list(item.enclosure).flatMap((e) => (isObject(e) ? image(e['@_url'], e['@_type'] ?? 'x/none', base) : [])),
    ...list(item['media:content']).flatMap((m) =>
      isObject(m) && (textOf(m['@_medium']) === 'image' || textOf(m['@_type']).startsWith('image/'))
        ? image(m['@_url'], '', base)
        : [],
    ),
  ];
  return {
    id: textOf(guid),
    link: link ?? permalink,
    title: textOf(item.title),
    body: { html: encoded || description },
    timeMs: timeOf(item.pubDate, item['dc:date']),
    images,
  };
}

/** Atom `<entry>` (RFC 4287 4.1.2). */
function atomEntry(entry: Raw, base: string): Parts {
  const links = list(entry.link).filter(isObject);
  const rel = (l: Raw) => textOf(l['@_rel']) || 'alternate';
  const alternate = links.find((l) => rel(l) === 'alternate');
  const images = links
    .filter((l) => rel(l) === 'enclosure')
    .flatMap((l) => image(l['@_href'], l['@_type'] ?? 'x/none', base));
  const title = atomHtml(entry.title);
  return {
    id: textOf(entry.id),
    link: alternate ? httpUrl(textOf(alternate['@_href']), base) : null,
    title:
      title === undefined
        ? ''
        : 'html' in title
          ? title.html
          : title.text.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;')),
    body: atomHtml(entry.content) ?? atomHtml(entry.summary),
    timeMs: timeOf(entry.published, entry.updated),
    images,
  };
}

/** JSON Feed 1.1 item (jsonfeed.org/version/1.1). */
function jsonItem(item: Raw, base: string): Parts {
  const html = typeof item.content_html === 'string' ? item.content_html : undefined;
  const text = typeof item.content_text === 'string' ? item.content_text : undefined;
  const summary = typeof item.summary === 'string' ? item.summary : undefined;
  const images = [
    ...image(item.image, '', base),
    ...list(item.attachments).flatMap((a) =>
      isObject(a) ? image(a.url, a.mime_type ?? 'x/none', base, textOf(a.title)) : [],
    ),
  ];
  return {
    id: typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id) : '',
    link: httpUrl(item.url, base),
    title: typeof item.title === 'string' ? item.title.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;')) : '',
    body:
      html !== undefined
        ? { html }
        : text !== undefined
          ? { text }
          : summary !== undefined
            ? { text: summary }
            : undefined,
    timeMs: timeOf(item.date_published, item.date_modified),
    images,
  };
}

const XML_OPTIONS = {
  // Atom's content and summary stay unparsed: their `type` says how to read them.
  stopNodes: ['feed.entry.content', 'feed.entry.summary', 'feed.entry.title'],
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: {
    enabled: true,
    maxEntityCount: 100,
    maxEntitySize: 10_000,
    maxTotalExpansions: 10_000,
    maxExpandedLength: 100_000,
  },
};

/**
 * The entries of a feed document. `base` resolves relative links (the feed's URL). Throws
 * PollError when the document is not a feed.
 */
export function parseFeed(body: string, contentType: string, base: string): Entry[] {
  const json = contentType.includes('json') || /^\s*\{/.test(body);
  // The root element says which: <rss> (and RSS 1.0's <rdf:RDF>, read the same way) or <feed>.
  const atom = !json && !/<(?:rss|rdf:RDF)[\s>]/.test(body);
  const read = (raw: Raw): Parts => (json ? jsonItem(raw, base) : atom ? atomEntry(raw, base) : rssItem(raw, base));
  const parts: Parts[] = [];
  const options = { xmlParserOptions: XML_OPTIONS, getExtraEntryFields: (raw: Raw) => (parts.push(read(raw)), {}) };
  try {
    if (json) {
      const data = JSON.parse(body) as unknown;
      if (
        !isObject(data) ||
        !textOf(data.version).startsWith('https://jsonfeed.org/version/1') ||
        !Array.isArray(data.items)
      ) {
        throw new PollError('the answer is not a JSON Feed (no version or items)');
      }
      extractFromJson(data, options);
    } else if (atom && /<feed[\s>]/.test(body) && !/<entry[\s>]/.test(body)) {
      return []; // an Atom feed with no entries (the library takes it for no feed at all)
    } else {
      extractFromXml(body, options);
    }
  } catch (error) {
    if (error instanceof PollError) throw error;
    throw new PollError(`the feed cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parts
    .slice(0, ENTRIES_MAX)
    .map((p) => entryOf(p, base))
    .filter((entry): entry is Entry => entry !== undefined);
}
