// What a connector that brings posts in implements (docs/design.md "Bringing posts in"): one
// poll of the outside source, given what the last poll left behind. The job (polls.job.ts)
// decides what is new, stores it, and schedules the next poll; the poller only reads.
import type { ScopeValue } from '../../db/schema.ts';
import type { Response } from 'undici';
import type { Outbound } from '../../lib/ssrf.ts';

export interface PollState {
  etag: string | null;
  lastModified: string | null;
  /** Where the previous poll stopped (Mastodon: the newest status id). */
  cursor: string | null;
  /** True until a poll has worked once: the first one imports a bounded backlog. */
  first: boolean;
}

export interface PollRequest {
  /** The non-secret configuration, as validated by the connector's `configSchema`. */
  config: Readonly<Record<string, unknown>>;
  /** The secret fields, decrypted. Never logged. */
  secrets: Readonly<Record<string, string>>;
  state: PollState;
  outbound: Outbound;
  /** Milliseconds since the epoch; injectable for tests. */
  now: () => number;
}

/** An image of an entry, fetched as a medium when the entry is stored. */
export interface EntryImage {
  url: string;
  /** Alt text; the medium's caption. */
  alt: string;
}

/** One entry as the source shows it. */
export interface Entry {
  /** What makes it the same entry next time: its id, else its link. */
  key: string;
  /** Where it lives outside (the entry's link, the status's URL); the post's `source_url`. */
  url: string | null;
  /** Other addresses of it (a status's `uri`), matched by the echo rule too. */
  aliases: string[];
  /** When it was published, milliseconds; null when the source does not say. */
  timeMs: number | null;
  /** Plain text, already sanitised; may be empty. */
  text: string;
  images: EntryImage[];
}

export type PollResult =
  | { notModified: true }
  | {
      notModified: false;
      /** Newest first, as far as the source tells. */
      entries: Entry[];
      etag: string | null;
      lastModified: string | null;
      cursor: string | null;
    };

export interface Poller {
  /** Whether a service of this configuration polls at all (Mastodon: `import: true`). */
  enabled(config: Readonly<Record<string, unknown>>): boolean;
  intervalMinutes(config: Readonly<Record<string, unknown>>): number;
  /** How many entries the first poll imports; older ones are only remembered as seen. */
  backlog(config: Readonly<Record<string, unknown>>): number;
  /** The scope of imported posts; undefined: the person's default scope for posts. */
  scope(config: Readonly<Record<string, unknown>>): ScopeValue | undefined;
  poll(request: PollRequest): Promise<PollResult>;
}

/**
 * A poll that did not work. `retryAfterMs`: the server asked for a pause (`Retry-After` on 429
 * or 503), which the next poll honours.
 */
export class PollError extends Error {
  override name = 'PollError';
  readonly retryAfterMs: number | null;
  constructor(message: string, retryAfterMs: number | null = null) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** `Retry-After` (RFC 9110 10.2.3): delay-seconds or an HTTP-date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** A PollError for a non-2xx answer, naming only the origin (paths may carry tokens). */
export async function pollFailure(response: Response, url: string, now: number): Promise<PollError> {
  await response.body?.cancel().catch(() => undefined);
  const wait =
    response.status === 429 || response.status === 503 ? retryAfterMs(response.headers.get('retry-after'), now) : null;
  return new PollError(`HTTP ${response.status} from ${new URL(url).origin}`, wait);
}

/** The body as text, refusing one over `maxBytes` without reading the rest. */
export async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new PollError(`the answer is over ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new PollError(`the answer is over ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
