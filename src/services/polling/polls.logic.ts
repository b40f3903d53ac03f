// The rules of bringing posts in (docs/api.md "Bringing posts in"), as plain functions: when
// the next poll runs, which entries of a poll become posts, and what a post made of an entry
// looks like.
import type { ScopeValue } from '../../db/schema.ts';
import type { FetchedImage } from '../../media/media.fetch.ts';
import { mediumRow, type MediumRow } from '../../media/media.repo.ts';
import { CAPTION_MAX } from '../../media/media.schemas.ts';
import { newId } from '../../lib/ids.ts';
import type { PostRow } from '../../posts/posts.repo.ts';
import { TEXT_MAX } from '../../posts/posts.schemas.ts';
import type { Entry } from './poller.ts';

const MINUTE = 60_000;
/** A failing source is asked again at most this far apart (the backoff stops growing). */
export const BACKOFF_MAX_MS = 24 * 60 * MINUTE;
/** A `Retry-After` is honoured up to this long. */
export const RETRY_AFTER_MAX_MS = 7 * 24 * 60 * MINUTE;
/** New entries stored by one poll after the first (a feed that rewrote everything is not a flood). */
export const ENTRIES_PER_POLL = 200;

/**
 * When the next poll runs: after the interval; after `failures` polls in a row failed, twice
 * the interval per failure (up to a day), and never before the source's `Retry-After`.
 */
export function nextPollAt(at: number, intervalMinutes: number, failures: number, retryAfterMs: number | null): number {
  const interval = intervalMinutes * MINUTE;
  let delay = failures === 0 ? interval : Math.min(interval * 2 ** failures, BACKOFF_MAX_MS);
  if (retryAfterMs !== null) delay = Math.max(delay, Math.min(retryAfterMs, RETRY_AFTER_MAX_MS));
  return at + delay;
}

export interface Seen {
  keys: ReadonlySet<string>;
  urls: ReadonlySet<string>;
}

/** Text compared for the echo rule: whitespace does not count. */
export const echoText = (text: string) => text.replace(/\s+/g, ' ').trim();

/** What marks an entry as an echo of a post Waypost delivered. */
export interface Echoes {
  /** Where the person's deliveries put posts (remote URLs). */
  urls: ReadonlySet<string>;
  /** The text (`echoText`) of posts on their way to this service, whose URL is not known yet. */
  texts: ReadonlySet<string>;
}

export interface Plan {
  /** New entries that become posts, newest first. */
  store: Entry[];
  /** Entries remembered as seen without a post: past the backlog, an echo, an id that changed. */
  skip: Entry[];
}

/**
 * Which entries of a poll become posts. An entry is new when neither its key nor its link was
 * seen before (a feed that changes its entries' ids keeps their links); one whose link or
 * address is where a delivery of the person put a post is an echo of that post, and so is one
 * with the text of a post still on its way to the service (its URL not known yet). The first poll
 * stores the newest `backlog` entries, later ones up to ENTRIES_PER_POLL.
 */
export function planImport(entries: Entry[], seen: Seen, echoes: Echoes, first: boolean, backlog: number): Plan {
  // Newest first by time when every entry has one; otherwise the document's order stands.
  const ordered = entries.every((e) => e.timeMs !== null)
    ? [...entries].sort((a, b) => (b.timeMs ?? 0) - (a.timeMs ?? 0))
    : entries;
  const keys = new Set<string>();
  const store: Entry[] = [];
  const skip: Entry[] = [];
  const limit = first ? backlog : ENTRIES_PER_POLL;
  for (const entry of ordered) {
    if (keys.has(entry.key) || seen.keys.has(entry.key)) continue;
    keys.add(entry.key);
    const known = entry.url !== null && seen.urls.has(entry.url);
    const echo =
      [entry.url, ...entry.aliases].some((url) => url !== null && echoes.urls.has(url)) ||
      (echoes.texts.size > 0 && echoes.texts.has(echoText(entry.text)));
    if (known || echo || store.length >= limit) skip.push(entry);
    else store.push(entry);
  }
  return { store, skip };
}

/** Text cut to the post limit at a word boundary, with an ellipsis. */
export function fitText(text: string): string {
  const chars = [...text];
  if (chars.length <= TEXT_MAX) return text;
  const cut = chars.slice(0, TEXT_MAX - 1).join('');
  const space = cut.search(/\s\S*$/);
  return `${(space > TEXT_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export interface ImportedPost {
  post: PostRow;
  media: MediumRow[];
}

/** The rows of an entry stored as a post, with its images; undefined when it has no text and no link. */
export function importedPost(
  entry: Entry,
  images: { alt: string; image: FetchedImage }[],
  context: { userId: string; serviceId: string; scope: ScopeValue; at: number },
): ImportedPost | undefined {
  const { userId, serviceId, scope, at } = context;
  const text = fitText(entry.text.trim() || entry.url || '');
  if (text === '') return undefined;
  // A date in the future is not believed: the post is dated when it was brought in.
  const time = entry.timeMs !== null && entry.timeMs <= at ? entry.timeMs : at;
  const media = images.map(({ alt, image }) =>
    mediumRow({
      userId,
      id: newId(),
      scope,
      timeMs: image.takenMs ?? time,
      createdAtMs: at,
      file: { kind: 'image', mimeType: image.mimeType, size: image.size, sha256: image.sha256 },
      width: image.width,
      height: image.height,
      duration: null,
      // Where a picture from elsewhere was taken is not the person's to publish.
      location: null,
      caption: [...alt].slice(0, CAPTION_MAX).join(''),
      hasThumbnail: image.hasThumbnail,
      source: serviceId,
    }),
  );
  const post: PostRow = {
    user_id: userId,
    id: newId(),
    scope,
    time,
    created_at: at,
    text,
    media_ids: JSON.stringify(media.map((m) => m.id)),
    lat: null,
    lon: null,
    source: serviceId,
    source_url: entry.url,
  };
  return { post, media };
}
