// mastodon: publishes a status through the Mastodon REST API (also spoken by Pleroma, Akkoma,
// GoToSocial). Plain fetch through the outbound guard rather than `masto`: the guard must own
// the socket, and four endpoints do not pay for a client library.
// POST /api/v1/statuses (docs.joinmastodon.org/methods/statuses/#create): "Idempotency-Key:
// Prevent duplicate submissions of the same status" - the delivery id, stable across retries.
// Media first (POST /api/v2/media, docs.joinmastodon.org/methods/media/#v2): "202 Accepted:
// MediaAttachment was created successfully, but the full-size file is still processing", then
// GET /api/v1/media/:id answers "206 Partial content: ... still being processed" until it is done.
// The length limit comes from GET /api/v2/instance (`configuration.statuses.max_characters`).
// An edit (docs.joinmastodon.org/methods/statuses/#edit) is PUT /api/v1/statuses/:id with the
// new `status` and the `media_ids` to keep: those are read first (GET /api/v1/statuses/:id),
// since an edit without them would drop the status's media.
import { setTimeout as sleep } from 'node:timers/promises';
import { Type } from 'typebox';
import { FormData } from 'undici';
import type { Outbound } from '../../lib/ssrf.ts';
import { mastodonConnect } from './mastodon.connect.ts';
import {
  DeliveryError,
  HTTP_URL_PATTERN,
  URL_MESSAGE,
  excerpt,
  httpFailure,
  unreachable,
  type Connector,
  type OutgoingMedium,
} from './connector.ts';
import { fitText, mastodonLength } from './text.ts';

/** What a server allows, as its instance API says; Mastodon's own defaults when it does not say. */
export interface InstanceLimits {
  maxCharacters: number;
  charactersPerUrl: number;
  maxMedia: number;
}
const DEFAULT_LIMITS: InstanceLimits = { maxCharacters: 500, charactersPerUrl: 23, maxMedia: 4 };

/** Instance limits change rarely (an admin's setting): one look per service an hour. */
const LIMITS_TTL_MS = 60 * 60 * 1000;
const limitsCache = new Map<string, { limits: InstanceLimits; until: number }>();

/** How long to wait for the server to process an upload before the delivery is tried again later. */
export const mediaPolling = { firstDelayMs: 250, maxDelayMs: 2000, budgetMs: 30_000 };

export const mastodon: Connector = {
  description:
    'Posts each of your posts on your Mastodon account (or another server that works like Mastodon), with its photos.',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      instance_url: Type.String({
        pattern: HTTP_URL_PATTERN,
        maxLength: 2000,
        title: 'Your server',
        description: 'The server your account is on, like https://mastodon.social.',
        errorMessage: URL_MESSAGE,
      }),
      access_token: Type.String({
        minLength: 1,
        maxLength: 2000,
        title: 'Access token',
        description:
          'Given by your server when you connect by signing in. To paste one instead: it needs the write:statuses ' +
          'and write:media permissions.',
        errorMessage: 'cannot be empty',
      }),
    },
    { additionalProperties: false },
  ),
  secretFields: ['access_token'],
  connect: mastodonConnect,

  async publish({ post, media, pageUrl, serviceId, config, secrets, deliveryId, outbound, now }) {
    const base = withSlash(config.instance_url ?? '');
    const auth = { authorization: `Bearer ${secrets.access_token ?? ''}` };
    const limits = await instanceLimits(outbound, base, `${serviceId} ${base}`, now());
    const mediaIds: string[] = [];
    for (const medium of media) {
      if (mediaIds.length === limits.maxMedia) break;
      if (medium.kind === 'other') continue; // Mastodon takes images, video and audio only
      mediaIds.push(await upload(outbound, base, auth, medium));
    }
    const url = new URL('api/v1/statuses', base).href;
    const measure = (text: string) => mastodonLength(text, limits.charactersPerUrl);
    const status = fitText(post.text, limits.maxCharacters, pageUrl, measure);
    // A private post goes to followers only, never to the public timeline.
    const visibility = post.scope === 'public' ? 'public' : 'private';
    const response = await outbound.request(url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': deliveryId },
      body: JSON.stringify({ status, visibility, ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}) }),
    });
    if (!response.ok) throw await httpFailure(response, url);
    const made = (await response.json().catch(() => null)) as { id?: unknown; url?: unknown; uri?: unknown } | null;
    if (!made) throw new DeliveryError(`the server at ${new URL(url).origin} answered without a status`, false);
    const remote = typeof made.url === 'string' ? made.url : typeof made.uri === 'string' ? made.uri : null;
    return { remoteUrl: remote, remoteId: typeof made.id === 'string' ? made.id : null };
  },

  async update({ post, pageUrl, serviceId, config, secrets, outbound, now, remoteId }) {
    if (!remoteId) throw new DeliveryError('the server gave no id for the status, so it cannot be edited', true);
    const base = withSlash(config.instance_url ?? '');
    const auth = { authorization: `Bearer ${secrets.access_token ?? ''}` };
    const url = new URL(`api/v1/statuses/${encodeURIComponent(remoteId)}`, base).href;
    const current = await outbound.request(url, { method: 'GET', headers: auth });
    if (current.status === 404) throw new DeliveryError('the status is gone from the server', true);
    if (!current.ok) throw await httpFailure(current, url);
    const status = (await current.json().catch(() => null)) as { media_attachments?: { id?: unknown }[] } | null;
    const mediaIds = (status?.media_attachments ?? []).flatMap((m) => (typeof m.id === 'string' ? [m.id] : []));
    const limits = await instanceLimits(outbound, base, `${serviceId} ${base}`, now());
    const text = fitText(post.text, limits.maxCharacters, pageUrl, (t) => mastodonLength(t, limits.charactersPerUrl));
    const response = await outbound.request(url, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ status: text, ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}) }),
    });
    if (!response.ok) throw await httpFailure(response, url);
    await response.body?.cancel();
  },

  // GET /api/v1/accounts/verify_credentials: "Test to make sure that the user token works."
  async test({ config, secrets, outbound }) {
    const url = new URL('api/v1/accounts/verify_credentials', withSlash(config.instance_url ?? '')).href;
    try {
      const response = await outbound.request(url, {
        method: 'GET',
        headers: { authorization: `Bearer ${secrets.access_token ?? ''}` },
      });
      const body = await response.text();
      if (!response.ok) return { ok: false, status: response.status, detail: excerpt(body) };
      const account = JSON.parse(body) as { acct?: unknown };
      const acct = typeof account.acct === 'string' ? account.acct : '?';
      return { ok: true, status: response.status, detail: `Signed in as @${acct}.` };
    } catch (error) {
      return unreachable(error);
    }
  },
};

/** The server's limits, from its instance API (cached); the defaults when it has none to give. */
async function instanceLimits(outbound: Outbound, base: string, key: string, at: number): Promise<InstanceLimits> {
  const cached = limitsCache.get(key);
  if (cached && cached.until > at) return cached.limits;
  let limits = DEFAULT_LIMITS;
  try {
    const response = await outbound.request(new URL('api/v2/instance', base).href, { method: 'GET' });
    if (response.ok) limits = readLimits(await response.json());
    else await response.body?.cancel();
  } catch {
    // A server that cannot say keeps Mastodon's defaults; the status itself will tell.
  }
  limitsCache.set(key, { limits, until: at + LIMITS_TTL_MS });
  return limits;
}

function readLimits(instance: unknown): InstanceLimits {
  const configuration = (instance as { configuration?: Record<string, Record<string, unknown> | undefined> })
    ?.configuration;
  const number = (value: unknown, fallback: number) =>
    typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
  return {
    maxCharacters: number(configuration?.statuses?.max_characters, DEFAULT_LIMITS.maxCharacters),
    charactersPerUrl: number(configuration?.statuses?.characters_reserved_per_url, DEFAULT_LIMITS.charactersPerUrl),
    maxMedia: number(configuration?.statuses?.max_media_attachments, DEFAULT_LIMITS.maxMedia),
  };
}

/** Uploads one medium with its caption as the description; answers its id once processed. */
async function upload(
  outbound: Outbound,
  base: string,
  auth: Record<string, string>,
  medium: OutgoingMedium,
): Promise<string> {
  const url = new URL('api/v2/media', base).href;
  const form = new FormData();
  form.append('file', new Blob([await medium.read()], { type: medium.mime_type }), `${medium.id}${suffix(medium)}`);
  if (medium.caption) form.append('description', medium.caption);
  const response = await outbound.request(url, { method: 'POST', headers: auth, body: form });
  if (!response.ok) throw await httpFailure(response, url);
  const attachment = (await response.json().catch(() => null)) as { id?: unknown } | null;
  if (typeof attachment?.id !== 'string') {
    throw new DeliveryError(`the server at ${new URL(url).origin} answered an upload without a media id`, false);
  }
  if (response.status === 202) await processed(outbound, base, auth, attachment.id);
  return attachment.id;
}

async function processed(outbound: Outbound, base: string, auth: Record<string, string>, id: string) {
  const url = new URL(`api/v1/media/${encodeURIComponent(id)}`, base).href;
  let waited = 0;
  for (
    let delay = mediaPolling.firstDelayMs;
    waited <= mediaPolling.budgetMs;
    delay = Math.min(delay * 2, mediaPolling.maxDelayMs)
  ) {
    await sleep(delay);
    waited += delay;
    const response = await outbound.request(url, { method: 'GET', headers: auth });
    if (response.status === 200) return void (await response.body?.cancel());
    if (response.status !== 206) throw await httpFailure(response, url);
    await response.body?.cancel();
  }
  throw new DeliveryError(`the server was still processing media ${id}; trying again later`, false);
}

const SUFFIXES: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'image/avif': '.avif',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
  'audio/mpeg': '.mp3',
  'audio/ogg': '.ogg',
  'audio/mp4': '.m4a',
  'audio/wav': '.wav',
  'audio/flac': '.flac',
};

/** A file name suffix: some servers judge the type by the name before the bytes. */
function suffix(medium: OutgoingMedium): string {
  return SUFFIXES[medium.mime_type] ?? '';
}

function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}
