// Mastodon import (docs/api.md "Bringing posts in"): a `mastodon` service with
// `config.import: true` brings the account's own statuses home, incrementally.
// docs.joinmastodon.org/methods/accounts/#verify_credentials: the account of the token;
// /methods/accounts/#statuses: `GET /api/v1/accounts/:id/statuses` with `since_id` ("all
// results returned will be greater than this ID"), `max_id` to page back, `limit` (at most 40),
// `exclude_reblogs`. Boosts, replies to other accounts and statuses that are not public or
// unlisted stay out; a thread of the person's own replies comes in.
import { Type } from 'typebox';
import { htmlToText, httpUrl } from '../polling/html-text.ts';
import { pollFailure, PollError, readCapped, type Entry, type Poller, type PollRequest } from '../polling/poller.ts';
import type { Connector } from './connector.ts';
import { IMPORT_SCOPE_SCHEMA, INTERVAL_SCHEMA, importScope, intervalMinutes } from './import.config.ts';

/** Statuses per page (the API's maximum) and pages per poll. */
const PAGE = 40;
const PAGES_MAX = 5;
const ANSWER_MAX_BYTES = 4 * 1024 * 1024;
const IMAGES_PER_STATUS = 4;

interface Status {
  id: string;
  uri?: string;
  url?: string | null;
  created_at?: string;
  content?: string;
  spoiler_text?: string;
  visibility?: string;
  reblog?: unknown;
  in_reply_to_account_id?: string | null;
  media_attachments?: { type?: string; url?: string; description?: string | null }[];
}

/** Mastodon ids are numbers in decimal (or sortable strings elsewhere): the longer is newer. */
const newer = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

async function getJson(request: PollRequest, path: string): Promise<unknown> {
  const base = String(request.config.instance_url);
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`).href;
  const response = await request.outbound.request(url, {
    method: 'GET',
    headers: { accept: 'application/json', authorization: `Bearer ${request.secrets.access_token ?? ''}` },
  });
  if (!response.ok) throw await pollFailure(response, url, request.now());
  try {
    return JSON.parse((await readCapped(response, ANSWER_MAX_BYTES)).toString('utf8')) as unknown;
  } catch (error) {
    if (error instanceof PollError) throw error;
    throw new PollError(`the server at ${new URL(url).origin} did not answer with JSON`);
  }
}

function entryOf(status: Status, instance: string): Entry {
  const { text } = htmlToText(status.content ?? '', instance);
  const warning = (status.spoiler_text ?? '').trim();
  const attached = (status.media_attachments ?? []).flatMap((media) => {
    const url = media.type === 'image' ? httpUrl(media.url, instance) : null;
    return url ? [{ url, alt: (media.description ?? '').trim() }] : [];
  });
  const url = httpUrl(status.url, instance) ?? httpUrl(status.uri, instance);
  return {
    key: status.id,
    url,
    aliases: typeof status.uri === 'string' && status.uri !== url ? [status.uri] : [],
    timeMs: status.created_at ? Date.parse(status.created_at) || null : null,
    text: warning ? `${warning}\n\n${text}` : text,
    // The attachments are the pictures; anything the content shows is not the status's own.
    images: attached.slice(0, IMAGES_PER_STATUS),
  };
}

const poller: Poller = {
  enabled: (config) => config.import === true,
  intervalMinutes,
  backlog: () => PAGE,
  scope: importScope,

  async poll(request) {
    const account = (await getJson(request, 'api/v1/accounts/verify_credentials')) as { id?: unknown } | null;
    if (typeof account?.id !== 'string') throw new PollError('verify_credentials answered without an account id');
    const since = request.state.cursor;
    const statuses: Status[] = [];
    let maxId: string | undefined;
    // The first poll reads one page (the backlog); later ones page back to `since_id`.
    for (let page = 0; page < (since ? PAGES_MAX : 1); page += 1) {
      const query = new URLSearchParams({ limit: String(PAGE), exclude_reblogs: 'true' });
      if (since) query.set('since_id', since);
      if (maxId) query.set('max_id', maxId);
      const answer = await getJson(
        request,
        `api/v1/accounts/${encodeURIComponent(account.id)}/statuses?${query.toString()}`,
      );
      if (!Array.isArray(answer)) throw new PollError('the statuses answer is not a list');
      const found = answer.filter((s): s is Status => typeof (s as Status | null)?.id === 'string');
      statuses.push(...found);
      if (found.length < PAGE) break;
      maxId = found.reduce((oldest, s) => (newer(oldest, s.id) ? s.id : oldest), found[0]?.id ?? '');
    }
    const cursor = statuses.reduce<string | null>((top, s) => (top === null || newer(s.id, top) ? s.id : top), since);
    const instance = String(request.config.instance_url);
    const own = statuses.filter(
      (s) =>
        !s.reblog &&
        (s.visibility === 'public' || s.visibility === 'unlisted') &&
        (s.in_reply_to_account_id === null ||
          s.in_reply_to_account_id === undefined ||
          s.in_reply_to_account_id === account.id),
    );
    const entries = own.sort((a, b) => (newer(a.id, b.id) ? -1 : 1)).map((s) => entryOf(s, instance));
    return { notModified: false, entries, etag: null, lastModified: null, cursor };
  },
};

/** The mastodon connector with the import side: its settings and its poller. */
export function withImport(connector: Connector): Connector {
  return {
    ...connector,
    configSchema: Type.Object(
      {
        ...connector.configSchema.properties,
        import: Type.Optional(
          Type.Boolean({
            title: 'Also bring my Mastodon posts here',
            description: 'Your own public posts on Mastodon are copied into Waypost as posts.',
          }),
        ),
        interval_minutes: INTERVAL_SCHEMA,
        scope: IMPORT_SCOPE_SCHEMA,
      },
      { additionalProperties: false },
    ),
    poll: poller,
  };
}
