// bluesky: publishes each post as an `app.bsky.feed.post` record through the AT Protocol
// (atproto.com/specs/xrpc), with @atproto/api as the client and every request through the
// outbound guard (its `fetch` option). Signed in with a handle and an app password
// (com.atproto.server.createSession); the session is kept sealed between deliveries and
// refreshed when the server says it expired (com.atproto.server.refreshSession), so a delivery
// does not sign in again each time. docs/api.md "Services and groups" has what goes out.
import { createHash } from 'node:crypto';
import type * as AtprotoApi from '@atproto/api';
import type { AppBskyEmbedImages, AtpAgent, AtpSessionData, XRPCError } from '@atproto/api';
import { Type } from 'typebox';
import { outboundFetch } from '../../lib/ssrf.ts';
import {
  DeliveryError,
  HTTP_URL_PATTERN,
  URL_MESSAGE,
  excerpt,
  unreachable,
  type Connector,
  type OutgoingMedium,
  type ServiceContext,
} from './connector.ts';
import { fitText, graphemeLength } from './text.ts';

export const BLUESKY_DEFAULT_SERVICE = 'https://bsky.social';
/** app.bsky.feed.post: `text` maxGraphemes 300. */
export const BLUESKY_TEXT_LIMIT = 300;
/** app.bsky.embed.images: at most 4 images, each blob at most 1,000,000 bytes (`maxSize`). */
export const BLUESKY_MAX_IMAGES = 4;
export const BLUESKY_MAX_IMAGE_BYTES = 1_000_000;
/** The image types the lexicon's `accept: image/*` is in practice served for. */
const BLUESKY_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
/** The longest side a resized image keeps (the Bluesky app shows at most 2000 px). */
const MAX_SIDE = 2000;
const WEB_APP = 'https://bsky.app';

// @atproto/api takes seconds to load (its lexicons): only a process that talks to Bluesky pays.
type Api = typeof AtprotoApi;
let loading: Promise<Api> | undefined;
const loadApi = (): Promise<Api> => (loading ??= import('@atproto/api'));

export const bluesky: Connector = {
  description: 'Posts each of your public posts on your Bluesky account, with its photos.',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      handle: Type.String({
        minLength: 3,
        maxLength: 253,
        pattern: '^@?[A-Za-z0-9.:-]+$',
        title: 'Your handle',
        description: 'Like alice.bsky.social, as your profile shows it.',
        errorMessage: 'must be your handle, like alice.bsky.social',
      }),
      app_password: Type.String({
        minLength: 1,
        maxLength: 200,
        title: 'App password',
        description:
          'Not your account password: a separate password for Waypost only, which you can revoke any time. Make one ' +
          'in Bluesky under Settings, Privacy and security, App passwords.',
        errorMessage: 'cannot be empty',
      }),
      service_url: Type.Optional(
        Type.String({
          pattern: HTTP_URL_PATTERN,
          maxLength: 2000,
          title: 'Your server',
          description: `Only if your account is not on Bluesky's own servers (${BLUESKY_DEFAULT_SERVICE}).`,
          errorMessage: URL_MESSAGE,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  secretFields: ['app_password'],

  async publish({ post, media, pageUrl, deliveryId, ...context }) {
    // Every Bluesky post is public: a private post is never sent there.
    if (post.scope !== 'public') {
      throw new DeliveryError('Bluesky posts are all public, so a private post is not sent there', true);
    }
    const api = await loadApi();
    return withSession(api, context, async (agent, did) => {
      const rich = new api.RichText({ text: fitText(post.text, BLUESKY_TEXT_LIMIT, pageUrl, graphemeLength) });
      await rich.detectFacets(agent);
      // A mention whose handle does not resolve has no DID: it stays plain text.
      const facets = rich.facets?.filter((facet) =>
        facet.features.every((feature) => !('did' in feature) || feature.did !== ''),
      );
      const images = await uploadImages(agent, media);
      const record = {
        $type: 'app.bsky.feed.post',
        text: rich.text,
        createdAt: new Date(Math.round(post.time * 1000)).toISOString(),
        ...(facets && facets.length > 0 ? { facets } : {}),
        ...(images.length > 0 ? { embed: { $type: 'app.bsky.embed.images', images } } : {}),
      };
      // The record key is made from the delivery, so a retry after a lost answer finds the
      // record it made instead of posting twice (atproto.com/specs/record-key: `tid`).
      const rkey = deliveryTid(post.time, deliveryId);
      const uri = await createOnce(api, agent, did, rkey, record);
      return { remoteUrl: `${WEB_APP}/profile/${did}/post/${rkey}`, remoteId: uri };
    });
  },

  async test(context) {
    const api = await loadApi();
    try {
      const session = await signIn(context, agentFor(api, context));
      await context.state.save(JSON.stringify(session));
      return { ok: true, status: 200, detail: `Signed in as @${session.handle} (${session.did}).` };
    } catch (error) {
      if (error instanceof api.XRPCError && httpStatus(error) >= 100) {
        return { ok: false, status: httpStatus(error), detail: excerpt(`${error.error}: ${error.message}`) };
      }
      return unreachable(error);
    }
  },
};

function agentFor(api: Api, { config, outbound }: ServiceContext): AtpAgent {
  return new api.AtpAgent({ service: config.service_url ?? BLUESKY_DEFAULT_SERVICE, fetch: outboundFetch(outbound) });
}

async function signIn({ config, secrets }: ServiceContext, agent: AtpAgent): Promise<AtpSessionData> {
  await agent.login({ identifier: (config.handle ?? '').replace(/^@/, ''), password: secrets.app_password ?? '' });
  const session = agent.session;
  if (!session) throw new DeliveryError('the server answered createSession without a session', false);
  return session;
}

/**
 * Runs `work` signed in: with the saved session when there is one (the agent refreshes it when
 * a request says it expired), else after createSession; once more after a fresh createSession
 * when the saved one is refused. The session is saved again whenever it changed.
 */
async function withSession<T>(
  api: Api,
  context: ServiceContext,
  work: (agent: AtpAgent, did: string) => Promise<T>,
): Promise<T> {
  const agent = agentFor(api, context);
  const isAuthError = (error: unknown) => error instanceof api.XRPCError && needsSignIn(error);
  const saved = parseSession(context.state.value);
  let stored = context.state.value;
  const persist = async () => {
    const now = agent.session ? JSON.stringify(agent.session) : null;
    if (now !== stored) await context.state.save(now);
    stored = now;
  };
  try {
    if (saved) {
      agent.sessionManager.session = saved;
      try {
        return await work(agent, saved.did);
      } catch (error) {
        if (!isAuthError(error)) throw error;
      }
    }
    const session = await signIn(context, agent).catch((error: unknown) => {
      throw isAuthError(error) ? new DeliveryError('the server refused the handle and app password', true) : error;
    });
    await persist();
    return await work(agent, session.did);
  } catch (error) {
    throw error instanceof api.XRPCError ? asDeliveryError(error) : error;
  } finally {
    await persist();
  }
}

/** The HTTP status of an XRPC failure (xrpc types it as its own enum). */
function httpStatus(error: XRPCError): number {
  return Number(error.status);
}

function parseSession(value: string | null): AtpSessionData | null {
  if (!value) return null;
  try {
    const session = JSON.parse(value) as Partial<AtpSessionData>;
    return typeof session.accessJwt === 'string' &&
      typeof session.refreshJwt === 'string' &&
      typeof session.did === 'string'
      ? (session as AtpSessionData)
      : null;
  } catch {
    return null;
  }
}

/** The answers that mean "sign in again": an expired or refused token that refreshing did not fix. */
function needsSignIn(error: XRPCError): boolean {
  return httpStatus(error) === 401 || ['ExpiredToken', 'InvalidToken', 'AuthenticationRequired'].includes(error.error);
}

// Statuses another attempt cannot fix, as for plain HTTP targets (connector.ts).
const PERMANENT = new Set([400, 401, 403, 404, 413, 415]);

function asDeliveryError(error: XRPCError): Error {
  // Below 100: no HTTP answer at all (xrpc's own codes for a network or parse failure).
  if (httpStatus(error) < 100) return error;
  return new DeliveryError(
    excerpt(`XRPC ${httpStatus(error)} ${error.error}: ${error.message}`),
    PERMANENT.has(httpStatus(error)),
  );
}

/** Uploads the images among `media` (the first four), each within the blob size limit. */
async function uploadImages(agent: AtpAgent, media: readonly OutgoingMedium[]): Promise<AppBskyEmbedImages.Image[]> {
  const images: AppBskyEmbedImages.Image[] = [];
  for (const medium of media) {
    if (images.length === BLUESKY_MAX_IMAGES) break;
    if (medium.kind !== 'image') continue;
    let bytes: Uint8Array | null = BLUESKY_IMAGE_TYPES.has(medium.mime_type) ? await medium.read() : null;
    let type = medium.mime_type;
    let size = medium.width && medium.height ? { width: medium.width, height: medium.height } : null;
    if (!bytes || bytes.byteLength > BLUESKY_MAX_IMAGE_BYTES) {
      const fitted = await medium.fit(BLUESKY_MAX_IMAGE_BYTES, MAX_SIDE);
      if (!fitted) continue; // cannot be made small enough: the post goes without it
      bytes = fitted.bytes;
      type = 'image/jpeg';
      size = { width: fitted.width, height: fitted.height };
    }
    const { data } = await agent.uploadBlob(bytes, { encoding: type });
    images.push({ image: data.blob, alt: medium.caption, ...(size ? { aspectRatio: size } : {}) });
  }
  return images;
}

/**
 * createRecord with a fixed record key; when it fails, a record already there under that key is
 * this delivery's own from an attempt whose answer was lost (the reference PDS answers such a
 * repeat with a 500, so any failure is looked up).
 */
async function createOnce(api: Api, agent: AtpAgent, did: string, rkey: string, record: Record<string, unknown>) {
  const collection = 'app.bsky.feed.post';
  try {
    const { data } = await agent.com.atproto.repo.createRecord({ repo: did, collection, rkey, record });
    return data.uri;
  } catch (error) {
    if (!(error instanceof api.XRPCError) || httpStatus(error) < 100 || needsSignIn(error)) throw error;
    const existing = await agent.com.atproto.repo.getRecord({ repo: did, collection, rkey }).catch(() => null);
    if (!existing) throw error;
    return existing.data.uri;
  }
}

const S32 = '234567abcdefghijklmnopqrstuvwxyz';

/**
 * A TID (atproto.com/specs/tid): 53 bits of microseconds since the epoch, then a 10-bit clock
 * id, base32-sortable in 13 characters. The time is the post's, the clock id comes from the
 * delivery id, so every attempt of a delivery names the same record.
 */
export function deliveryTid(postTimeSeconds: number, deliveryId: string): string {
  const micros = BigInt(Math.round(postTimeSeconds * 1_000_000));
  const clock = BigInt(createHash('sha256').update(deliveryId).digest().readUInt16BE(0) & 0x3ff);
  let value = (micros << 10n) | clock;
  let out = '';
  for (let i = 0; i < 13; i += 1) {
    out = (S32[Number(value & 31n)] ?? '2') + out;
    value >>= 5n;
  }
  return out;
}
