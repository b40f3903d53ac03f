// Hashtags in a post's text (docs/web-public.md "Hashtags"): `#` and a run of letters, digits,
// marks and underscores holding at least one letter, as Mastodon reads them, so `#1` and `#42`
// (numbers) are not tags. The `#` must start the text or follow something that cannot be part of
// a word or an address: a space, punctuation, a bracket. `issue#3`, `example.org/#top` and
// `&#39;` hold no tag. Two tags are the same tag when they are the same without case and accents
// (`#Köln` and `#koln`), as the search folds words (search.query.ts).
import { fold } from './search.query.ts';

/** The longest tag read: a longer run is not a tag (nobody types one). */
export const TAG_MAX = 100;

const TAG = /(^|[^\p{L}\p{N}\p{M}_&/#])#([\p{L}\p{N}\p{M}_]+)/gu;
const HAS_LETTER = /\p{L}/u;

export interface TagMatch {
  /** Where the `#` is, and where the tag ends (exclusive), in UTF-16 units of the text. */
  start: number;
  end: number;
  /** The tag as written, without `#`. */
  tag: string;
}

/** The tags in a text, in order. */
export function hashtagsIn(text: string): TagMatch[] {
  const found: TagMatch[] = [];
  for (const match of text.matchAll(TAG)) {
    const tag = match[2]!;
    if (!HAS_LETTER.test(tag) || [...tag].length > TAG_MAX) continue;
    const start = match.index + match[1]!.length;
    found.push({ start, end: start + 1 + tag.length, tag });
  }
  return found;
}

/** A tag as it is compared: lower case, without accents, NFC. */
export function tagKey(tag: string): string {
  return fold(tag).normalize('NFC');
}

/** Whether `tag` (without `#`) is one a text could hold: what a tag page's address may name. */
export function isTag(tag: string): boolean {
  const found = hashtagsIn(`#${tag}`);
  return found.length === 1 && found[0]!.tag === tag;
}

/** Whether the text holds the tag. */
export function hasTag(text: string, tag: string): boolean {
  const key = tagKey(tag);
  return hashtagsIn(text).some((found) => tagKey(found.tag) === key);
}
