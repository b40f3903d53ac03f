// Copies of public pages: the one place that decides when a copy is made, used, revalidated,
// replayed and dropped. Anonymous reads of public pages (`GET /<kind>/public/<username>`, the
// web pages `/@<username>`) are most of what a personal site serves: feed readers polling the
// Atom feed, maps reloading a GeoJSON track. The routes that answer them (src/items/
// reads.reply.ts, src/web/profile/profile.routes.ts) ask `publicCopy` what to do and do it;
// src/app.ts hands `replay` the raw requests, `answered` every answer and `close` the shutdown.
//
// The version it listens to. A page's answer can only change when the person's items or
// settings change, and the database says when that happens: `users.items_version` moves in the
// same transaction as every such write (the triggers of migration 0006), and `users.updated_at`
// with every profile change. Only writes that touch public items (or the precision public
// locations are shown at) move the version: a private post or location must not show through a
// public page's ETag.
//
// Made: a page is named by what was asked (path, query, Accept), by that version as read
// *before* the page is computed (`checkpoint`, then the version), and by this server's run and
// base URL, so a new release or a new address never answers 304 with an old page (servers
// behind one balancer answer each other's ETags with 200, not 304). From the name comes a weak
// ETag, so a client that has the page gets 304 without any page being built; and this process
// keeps a copy of the bytes under the request, with the ETag it was made for. A copy can be
// newer than its ETag (a write landed while it was being built) but never older.
//
// Used and revalidated: a copy is sent when the version just read gives the ETag it was made
// for (`publicCopy`), which marks it confirmed at that moment. Replayed: a copy confirmed less
// than `revalidateMs` ago is sent straight from node:http before any routing, without reading
// the version (`PageCache.replay`): measured (BENCHMARKS.md), building a page of 50 posts costs
// several times what sending it does, and even the one read of the version costs as much again
// as the rest of the answer.
//
// Dropped: every copy stops being replayed once this process answers a request that may have
// written (`answered`), so a write through this process shows at once and one through another
// process sharing the database within `revalidateMs`; a copy whose ETag is no longer current is
// replaced by the next page built for its request; the least recently used go first past
// `maxBytes`; one too large or under too long a name is never kept; and nothing is replayed
// once the server is closing.
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { noneMatch } from './conditional.ts';

/** What makes a person's public pages what they are, read from their row with the request. */
export interface PageVersion {
  userId: string;
  itemsVersion: number;
  updatedAt: number;
}

/**
 * A page, its media type and its `Link` to the next page. A page built for one answer may be
 * text (a JSON array goes out as the string it was written as: no copy into a buffer first);
 * a copy keeps bytes.
 */
export interface BuiltPage {
  type: string;
  body: Buffer | string;
  link: string | undefined;
}

/** A page as a copy keeps it. */
interface KeptPage extends BuiltPage {
  body: Buffer;
}

/** This process's run: a restart (a new release, other settings) never answers 304 with an old page. */
const THIS_RUN = randomUUID();

/** The weak ETag of a page: a digest, so it shows neither the internal id nor the counters. */
export function pageEtag(baseUrl: string, request: string, version: PageVersion): string {
  const digest = createHash('sha256')
    .update(`${THIS_RUN}\n${baseUrl}\n${request}\n${version.userId}\n${version.itemsVersion}\n${version.updatedAt}`)
    .digest('base64url')
    .slice(0, 27);
  return `W/"${digest}"`;
}

/** Response headers as a copy keeps them. */
type Headers = Record<string, string | number | string[] | undefined>;

/** When, and at which write generation, a public page's version was about to be read. */
export interface Checked {
  at: number;
  generation: number;
}

/** Methods whose requests may write; answering one makes this process's copies stale. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A copy: the page, its ETag, the response headers it was sent with, and when it was last known current. */
interface Copy {
  /** What it counts against the size (costOf), set when kept. */
  cost?: number;
  etag: string;
  page: KeptPage;
  headers: Headers;
  /** The route pattern, for the metrics of a replayed answer. */
  route: string;
  /** performance.now() (a clock that never steps back) and this process's write generation when the database last said the ETag is current. */
  checkedAt: number;
  generation: number;
}

/**
 * The name of a request for a copy: what can change the answer besides the version. Not the
 * Origin: CORS on these pages is `*` for every origin.
 */
export function requestKey(url: string, headers: IncomingHttpHeaders): string {
  return `${url}\n${headers.accept ?? ''}`;
}

/** A copy's share of the memory: body, key, headers, and the objects around them. */
const OVERHEAD_BYTES = 1024;
/** Longer names are not kept: a client inventing Accept values should not fill the memory. */
const KEY_MAX = 2048;

function costOf(key: string, copy: Omit<Copy, 'page'> & { page: BuiltPage }): number {
  let headers = 0;
  for (const [name, value] of Object.entries(copy.headers)) headers += name.length + String(value).length;
  return Buffer.byteLength(copy.page.body) + key.length + headers + copy.etag.length + OVERHEAD_BYTES;
}

/** A buffer of its own: a small one cut from Node's shared pool would keep the whole pool alive. */
function ownBuffer(body: Buffer | string): Buffer {
  if (typeof body === 'string') body = Buffer.from(body);
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}

/**
 * Copies of public pages by request, at most `maxBytes` of bodies in all, least recently used
 * going first.
 *
 * Serving a copy normally costs one indexed read of the person's row (the version). A copy
 * the database confirmed less than `revalidateMs` ago is served without that read, straight
 * from node:http before any routing (`replay`), provided no request that may write
 * (POST, PUT, PATCH, DELETE) has been answered by this process since (`invalidate`). So a
 * write made through this process shows at once; one made by another process sharing the
 * database (another server process) shows within `revalidateMs`.
 */
export class PageCache {
  readonly #copies = new Map<string, Copy>();
  readonly #maxBytes: number;
  readonly #revalidateMs: number;
  #bytes = 0;
  #generation = 0;
  #closing = false;

  constructor({ maxBytes, revalidateMs }: { maxBytes: number; revalidateMs: number }) {
    this.#maxBytes = maxBytes;
    this.#revalidateMs = revalidateMs;
  }

  /** Taken before a page's version is read: a write answered after this outdates what is built now. */
  checkpoint(): Checked {
    return { at: performance.now(), generation: this.#generation };
  }

  /** A request has been answered: one that may have written (not refused with a 4xx) makes every copy stale. */
  answered(method: string, statusCode: number): void {
    const refused = statusCode >= 400 && statusCode < 500;
    if (WRITES.has(method) && !refused) this.#generation += 1;
  }

  /** The server is shutting down: replay nothing, so fastify can answer 503 and close. */
  close(): void {
    this.#closing = true;
  }

  /**
   * The copy for a request if its ETag is the current one, marked as checked at the moment
   * (and generation) the version was read.
   */
  current(key: string, etag: string, checked: Checked): Copy | undefined {
    const copy = this.#copies.get(key);
    if (!copy || copy.etag !== etag) return undefined;
    // Map keeps insertion order: moving a hit to the end makes the first entry the least recent.
    this.#copies.delete(key);
    this.#copies.set(key, copy);
    copy.checkedAt = checked.at;
    copy.generation = checked.generation;
    return copy;
  }

  keep(key: string, copy: Omit<Copy, 'page'> & { page: BuiltPage }): void {
    const cost = costOf(key, copy);
    // One huge page (count=1000 of long posts) would push out everything else: not kept.
    if (key.length > KEY_MAX || cost > this.#maxBytes / 16) return;
    this.#drop(key);
    this.#copies.set(key, { ...copy, page: { ...copy.page, body: ownBuffer(copy.page.body) }, cost });
    this.#bytes += cost;
    for (const [oldest, old] of this.#copies) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#copies.delete(oldest);
      this.#bytes -= old.cost ?? 0;
    }
  }

  #drop(key: string): void {
    const copy = this.#copies.get(key);
    if (!copy) return;
    this.#copies.delete(key);
    this.#bytes -= copy.cost ?? 0;
  }

  /**
   * Answers a request with a copy that is still known current, as fastify answered it the last
   * time (same headers, a new request id); false to let the application answer. Only plain
   * GETs: a token, a conditional request or anything else goes the whole way. Returns the
   * route pattern of the page it sent, or undefined when it sent nothing.
   */
  replay(
    request: IncomingMessage,
    response: ServerResponse,
    requestId: (request: IncomingMessage) => string,
  ): string | undefined {
    if (request.method !== 'GET' || this.#revalidateMs === 0 || this.#closing) return undefined;
    const headers = request.headers;
    if (headers.authorization !== undefined || headers['if-none-match'] !== undefined) return undefined;
    const copy = this.#copies.get(requestKey(request.url ?? '', headers));
    const age = performance.now() - (copy?.checkedAt ?? 0);
    if (!copy || copy.generation !== this.#generation || age >= this.#revalidateMs) {
      return undefined;
    }
    response.writeHead(200, {
      ...copy.headers,
      'x-request-id': requestId(request),
      'content-length': copy.page.body.length,
    });
    response.end(copy.page.body);
    return copy.route;
  }

  get size(): { pages: number; bytes: number } {
    return { pages: this.#copies.size, bytes: this.#bytes };
  }
}

/** What a route does with a request for a public page (`publicCopy`). */
export interface PublicCopy {
  /** The weak ETag the answer carries. */
  etag: string;
  /** The client has this version: answer 304 with the ETag. */
  notModified: boolean;
  /** A copy made for this ETag, to send as it is; undefined: build the page. */
  kept: BuiltPage | undefined;
  /** After a page was built (never a kept one): keep it with the headers it goes out with. */
  keep(page: BuiltPage, headers: Headers, route: string): void;
}

/** `checkpoint` when there are copies; without, every page is built. */
export function checkpoint(pages: PageCache | undefined): Checked {
  return pages?.checkpoint() ?? { at: performance.now(), generation: 0 };
}

/**
 * How to answer a request for a public page whose version is `version`, read after `checked`.
 * `space` keeps apart the ETags of different answers to one address (the HTML pages').
 */
export function publicCopy(
  pages: PageCache | undefined,
  baseUrl: string,
  request: { url: string; headers: IncomingHttpHeaders },
  { version, checked, space = '' }: { version: PageVersion; checked: Checked; space?: string },
): PublicCopy {
  const key = requestKey(request.url, request.headers);
  const etag = pageEtag(baseUrl, space + key, version);
  const notModified = noneMatch(request.headers['if-none-match'], etag);
  const kept = notModified ? undefined : pages?.current(key, etag, checked)?.page;
  return {
    etag,
    notModified,
    kept,
    keep(page, { 'x-request-id': _perRequest, ...headers }, route) {
      if (kept) return;
      pages?.keep(key, { etag, page, headers, route, checkedAt: checked.at, generation: checked.generation });
    },
  };
}
