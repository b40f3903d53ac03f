// Fitting a post's text to a target's limit (docs/api.md "Services and groups"): a text over the
// limit is cut at a word boundary and ends with a link to the post's public page, so a target
// never refuses a post for its length and a reader can find the whole of it.

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** User-perceived characters (Unicode extended grapheme clusters): what Bluesky counts. */
export function graphemeLength(text: string): number {
  let count = 0;
  for (const _ of segmenter.segment(text)) count += 1;
  return count;
}

// Mastodon counts every link as 23 characters, whatever its length, and the rest in code points
// (docs.joinmastodon.org/user/posting/#text: "All links count as 23 characters"); a server says
// its own number as `configuration.statuses.characters_reserved_per_url`.
const URL_IN_TEXT = /https?:\/\/[^\s]+/g;

export function mastodonLength(text: string, charactersPerUrl = 23): number {
  let length = 0;
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    length += [...text.slice(last, match.index)].length + charactersPerUrl;
    last = match.index + match[0].length;
  }
  return length + [...text.slice(last)].length;
}

const ELLIPSIS = '…';

/**
 * `text` when `measure(text) <= limit`; else the longest start of it that ends at a word
 * boundary, then "… " and `link`, within the limit. A first word longer than the room is cut
 * between graphemes. Whitespace and the text's own line breaks are kept as written.
 */
export function fitText(text: string, limit: number, link: string, measure: (text: string) => number): string {
  if (measure(text) <= limit) return text;
  const ending = (start: string) => `${start.trimEnd()}${ELLIPSIS} ${link}`;
  const boundaries = [...segmenter.segment(text)].map((segment) => segment.index);
  // Cut points at word boundaries (before whitespace), shortest first.
  const words = boundaries.filter((at) => at > 0 && /\s/.test(text[at] ?? '') && !/\s/.test(text[at - 1] ?? ''));
  const best = longestFitting(words, (at) => measure(ending(text.slice(0, at))) <= limit);
  if (best !== undefined) return ending(text.slice(0, best));
  const hard = longestFitting(
    boundaries.filter((at) => at > 0),
    (at) => measure(ending(text.slice(0, at))) <= limit,
  );
  return hard === undefined ? link : ending(text.slice(0, hard));
}

/** The largest of the ascending `points` that `fits` (which holds for a prefix of them). */
function longestFitting(points: number[], fits: (point: number) => boolean): number | undefined {
  let low = 0;
  let high = points.length - 1;
  let found: number | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const point = points[middle] ?? 0;
    if (fits(point)) {
      found = point;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
