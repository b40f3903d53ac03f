// micropub: W3C Micropub create (www.w3.org/TR/micropub/ 3.3): a POST with `h=entry` and
// `content`, bearer token in the Authorization header (3.8); "the server MUST respond with ...
// HTTP 201 Created or 202 Accepted, and MUST return a Location header".
// A post with media: each file goes to the site's media endpoint when `q=config` names one
// (3.6: "the Media Endpoint MUST return ... 201 Created ... with a Location header"), else the
// public copies' URLs are sent; then the entry is created in the JSON syntax (3.3.2), which
// carries each photo's alt text (`{"value", "alt"}`). Without media, form-encoded (3.3.1).
// An edit is an update (3.4): `{"action": "update", "url": ..., "replace": {"content": [...]}}`
// in the JSON syntax, to the URL the create answered with.
// Micropub has no idempotency key, so a retry after a lost answer can post twice; the
// worker's lease keeps that to the crash case.
import { Type } from 'typebox';
import { FormData } from 'undici';
import type { Outbound } from '../../lib/ssrf.ts';
import {
  DeliveryError,
  HTTP_URL_PATTERN,
  URL_MESSAGE,
  excerpt,
  httpFailure,
  unreachable,
  type Connector,
  type OutgoingMedium,
  type OutgoingPost,
} from './connector.ts';

/** Micropub's property for each kind of medium (3.3.1: photo, video, audio). */
const PROPERTY = { image: 'photo', video: 'video', audio: 'audio' } as const;

export const micropub: Connector = {
  description:
    'Posts each of your posts on your own website, if it takes posts through Micropub (many IndieWeb sites do).',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      endpoint: Type.String({
        pattern: HTTP_URL_PATTERN,
        maxLength: 2000,
        title: 'Micropub address of your site',
        description: 'Your site names it in its page header (rel="micropub"), like https://example.com/micropub.',
        errorMessage: URL_MESSAGE,
      }),
      access_token: Type.String({
        minLength: 1,
        maxLength: 2000,
        title: 'Access token',
        description: 'A token from your site that may create posts (and upload media).',
        errorMessage: 'cannot be empty',
      }),
    },
    { additionalProperties: false },
  ),
  secretFields: ['access_token'],

  async publish({ post, media, config, secrets, outbound }) {
    const url = config.endpoint ?? '';
    const auth = { authorization: `Bearer ${secrets.access_token ?? ''}` };
    const sendable = media.filter((medium) => medium.kind !== 'other');
    let body: { type: string; text: string };
    if (sendable.length === 0) body = { type: 'application/x-www-form-urlencoded', text: formEntry(post).toString() };
    else {
      const mediaEndpoint = await findMediaEndpoint(outbound, url, auth);
      const files: { medium: OutgoingMedium; url: string }[] = [];
      for (const medium of sendable) {
        files.push({ medium, url: mediaEndpoint ? await upload(outbound, mediaEndpoint, auth, medium) : medium.url });
      }
      body = { type: 'application/json', text: JSON.stringify(jsonEntry(post, files)) };
    }
    const response = await outbound.request(url, {
      method: 'POST',
      headers: { ...auth, 'content-type': body.type },
      body: body.text,
    });
    if (!response.ok) throw await httpFailure(response, url);
    await response.body?.cancel();
    const location = response.headers.get('location');
    return { remoteUrl: location ? new URL(location, url).href : null };
  },

  async update({ post, config, secrets, outbound, remoteUrl }) {
    if (!remoteUrl) throw new DeliveryError('the site gave no URL for the post, so it cannot be edited', true);
    const url = config.endpoint ?? '';
    const response = await outbound.request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.access_token ?? ''}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'update', url: remoteUrl, replace: { content: [post.text] } }),
    });
    if (!response.ok) throw await httpFailure(response, url);
    await response.body?.cancel();
  },

  // `q=config` (3.7.1) needs the token, so its answer says whether the token works.
  async test({ config, secrets, outbound }) {
    const url = new URL(config.endpoint ?? '');
    url.searchParams.set('q', 'config');
    try {
      const response = await outbound.request(url.href, {
        method: 'GET',
        headers: { authorization: `Bearer ${secrets.access_token ?? ''}`, accept: 'application/json' },
      });
      return { ok: response.ok, status: response.status, detail: excerpt(await response.text()) };
    } catch (error) {
      return unreachable(error);
    }
  },
};

function formEntry(post: OutgoingPost): URLSearchParams {
  const form = new URLSearchParams({ h: 'entry', content: post.text, published: isoTime(post.time) });
  // The `visibility` extension (indieweb.org/Micropub-extensions) keeps a private post off
  // the public site where the server understands it.
  if (post.scope === 'private') form.set('visibility', 'private');
  if (post.location) form.set('location', `geo:${post.location.lat},${post.location.lon}`);
  return form;
}

function jsonEntry(post: OutgoingPost, files: { medium: OutgoingMedium; url: string }[]) {
  const properties: Record<string, unknown[]> = { content: [post.text], published: [isoTime(post.time)] };
  if (post.scope === 'private') properties.visibility = ['private'];
  if (post.location) properties.location = [`geo:${post.location.lat},${post.location.lon}`];
  for (const { medium, url } of files) {
    const name = PROPERTY[medium.kind as keyof typeof PROPERTY];
    const value = medium.kind === 'image' && medium.caption ? { value: url, alt: medium.caption } : url;
    (properties[name] ??= []).push(value);
  }
  return { type: ['h-entry'], properties };
}

/** The media endpoint from `q=config` (3.7.1), or null when the site has none or will not say. */
async function findMediaEndpoint(outbound: Outbound, endpoint: string, auth: Record<string, string>) {
  const url = new URL(endpoint);
  url.searchParams.set('q', 'config');
  try {
    const response = await outbound.request(url.href, {
      method: 'GET',
      headers: { ...auth, accept: 'application/json' },
    });
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const config = (await response.json()) as { 'media-endpoint'?: unknown };
    const found = config['media-endpoint'];
    return typeof found === 'string' ? new URL(found, url).href : null;
  } catch {
    return null;
  }
}

/** Uploads one file as multipart `file` (3.6.1); answers the URL the Location header gives. */
async function upload(outbound: Outbound, endpoint: string, auth: Record<string, string>, medium: OutgoingMedium) {
  const form = new FormData();
  form.append('file', new Blob([await medium.read()], { type: medium.mime_type }), medium.id);
  const response = await outbound.request(endpoint, { method: 'POST', headers: auth, body: form });
  if (!response.ok) throw await httpFailure(response, endpoint);
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) {
    throw new DeliveryError(`the media endpoint at ${new URL(endpoint).origin} answered without a Location`, false);
  }
  return new URL(location, endpoint).href;
}

function isoTime(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}
