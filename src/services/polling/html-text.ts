// Text of imported HTML (docs/api.md "Bringing posts in"): a post's `text` is plain text
// everywhere Waypost shows or sends it, so an entry's HTML becomes plain text. sanitize-html
// does the parsing: first it keeps only block elements without attributes (dropping scripts,
// styles and everything else, content and all, and noting each image's address on the way),
// then those few known tags become line breaks and the entities it wrote are read back.
import sanitizeHtml from 'sanitize-html';
import type { EntryImage } from './poller.ts';

const BLOCKS = ['p', 'div', 'li', 'blockquote', 'pre', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'figcaption'];

/** Elements whose content is never text (sanitize-html's default list and a few more). */
const NOT_TEXT = ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'iframe', 'object', 'svg', 'math'];

/** HTTP(S) address of an attribute, resolved against the page; null for anything else. */
export function httpUrl(value: unknown, base: string | undefined): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = base ? new URL(value.trim(), base) : new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The entities sanitize-html writes when it escapes text (its `escapeHtml`). */
function unescape(text: string): string {
  return text.replace(/&(lt|gt|quot|#39|amp);/g, (_all, name: string) =>
    name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : name === '#39' ? "'" : '&',
  );
}

/** Tidies whitespace: spaces collapsed, lines trimmed, at most one empty line in a row. */
export function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The plain text of an HTML fragment, and the images it shows (`<img src>` over http(s),
 * resolved against `base`). No markup survives: what a script or style held is dropped with it.
 */
export function htmlToText(html: string, base?: string): { text: string; images: EntryImage[] } {
  const images: EntryImage[] = [];
  const kept = sanitizeHtml(html, {
    allowedTags: [...BLOCKS, 'br'],
    allowedAttributes: {},
    nonTextTags: NOT_TEXT,
    allowedSchemes: [],
    transformTags: {
      img: (tagName, attribs) => {
        const url = httpUrl(attribs.src, base);
        if (url) images.push({ url, alt: tidy(attribs.alt ?? '') });
        return { tagName, attribs };
      },
    },
  });
  const text = kept
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<\/(?:li|tr)>/g, '\n')
    .replace(new RegExp(`</(?:${BLOCKS.join('|')})>`, 'g'), '\n\n')
    .replace(/<[^>]*>/g, '');
  return { text: tidy(unescape(text)), images };
}

/** Text that may carry HTML (a feed title): its plain text. */
export function plainText(value: string): string {
  return htmlToText(value).text;
}
