// feed: an RSS, Atom or JSON Feed URL, polled on a schedule (docs/api.md "Bringing posts in").
// Each poll is a conditional GET (RFC 9110 13.1: If-None-Match with the last ETag,
// If-Modified-Since with the last Last-Modified), so an unchanged feed costs a 304 and nothing
// more. The body is read up to FEED_MAX_BYTES and parsed by src/services/polling/feed.parse.ts.
import { Type } from 'typebox';
import { parseFeed } from '../polling/feed.parse.ts';
import { pollFailure, readCapped, type Poller } from '../polling/poller.ts';
import { HTTP_URL_PATTERN, URL_MESSAGE, type Connector } from './connector.ts';
import { BACKLOG_SCHEMA, INTERVAL_SCHEMA, IMPORT_SCOPE_SCHEMA, importScope, intervalMinutes } from './import.config.ts';

/** The largest feed document read. */
export const FEED_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_BACKLOG = 50;

const ACCEPT =
  'application/feed+json, application/atom+xml, application/rss+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.1';

/** The document's text in the charset its Content-Type or XML declaration names (UTF-8 otherwise). */
function decode(bytes: Buffer, contentType: string): string {
  const declared =
    /charset="?([\w-]+)/i.exec(contentType)?.[1] ??
    /^<\?xml[^>]*encoding=["']([\w-]+)["']/.exec(bytes.subarray(0, 200).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

const poller: Poller = {
  enabled: () => true,
  intervalMinutes,
  backlog: (config) => (typeof config.backlog === 'number' ? config.backlog : DEFAULT_BACKLOG),
  scope: importScope,

  async poll({ config, state, outbound, now }) {
    const url = String(config.url);
    const headers: Record<string, string> = { accept: ACCEPT };
    if (state.etag) headers['if-none-match'] = state.etag;
    if (state.lastModified) headers['if-modified-since'] = state.lastModified;
    const response = await outbound.request(url, { method: 'GET', headers });
    if (response.status === 304) {
      await response.body?.cancel().catch(() => undefined);
      return { notModified: true };
    }
    if (!response.ok) throw await pollFailure(response, url, now());
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    const body = decode(await readCapped(response, FEED_MAX_BYTES), contentType);
    return {
      notModified: false,
      entries: parseFeed(body, contentType, url),
      etag: response.headers.get('etag'),
      lastModified: response.headers.get('last-modified'),
      cursor: null,
    };
  },
};

export const feed: Connector = {
  description:
    'Brings the entries of a feed (RSS, Atom or JSON Feed: a blog, a podcast, a news site) in as your posts.',
  capabilities: ['import'],
  configSchema: Type.Object(
    {
      url: Type.String({
        pattern: HTTP_URL_PATTERN,
        maxLength: 2000,
        title: 'Address of the feed',
        description: 'The RSS, Atom or JSON Feed address, like https://example.com/feed.xml.',
        errorMessage: URL_MESSAGE,
      }),
      interval_minutes: INTERVAL_SCHEMA,
      backlog: BACKLOG_SCHEMA,
      scope: IMPORT_SCOPE_SCHEMA,
    },
    { additionalProperties: false },
  ),
  secretFields: [],
  poll: poller,
};
