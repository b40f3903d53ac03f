// webhook: POSTs each post as JSON, signed per the Standard Webhooks specification
// (standardwebhooks.com): headers `webhook-id`, `webhook-timestamp`, `webhook-signature`.
// The spec: "webhook-id: the unique message identifier ... the same when a message is retried",
// so the id is the delivery's id and a receiver can drop a repeat. The post's public media go
// as the URLs of their public copies (docs/api.md "Services and groups"), never as files.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Type } from 'typebox';
import type { Outbound } from '../../lib/ssrf.ts';
import { HTTP_URL_PATTERN, URL_MESSAGE, excerpt, httpFailure, unreachable, type Connector } from './connector.ts';

/** A signing secret as Standard Webhooks writes one: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export const webhook: Connector = {
  description:
    'Sends each post to an address of your own (your website, a home server, an automation), signed so the ' +
    'receiver can tell it came from this Waypost (the Standard Webhooks format).',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      url: Type.String({
        pattern: HTTP_URL_PATTERN,
        maxLength: 2000,
        title: 'Address that receives your posts',
        description: 'The full web address, like https://example.com/waypost-hook.',
        errorMessage: URL_MESSAGE,
      }),
      secret: Type.String({
        // Standard Webhooks: the signing secret is base64, shown with a `whsec_` prefix, 24 to 64 bytes.
        pattern: '^whsec_[A-Za-z0-9+/]{32,88}={0,2}$',
        title: 'Signing secret',
        description:
          'Waypost makes one when you add the service and shows it once. To use a secret the receiver has already: ' +
          'whsec_ followed by its base64 text.',
        errorMessage:
          'must be whsec_ followed by 32 to 88 base64 letters; or leave it out and Waypost makes one for you',
      }),
    },
    { additionalProperties: false },
  ),
  secretFields: ['secret'],
  makeSecrets: { secret: newWebhookSecret },

  async publish({ post, media, config, secrets, deliveryId, outbound, now }) {
    const url = config.url ?? '';
    const data = {
      ...post,
      media_ids: media.map((medium) => medium.id),
      media: media.map(({ id, kind, mime_type, url: file, caption, width, height }) => ({
        id,
        kind,
        mime_type,
        url: file,
        caption,
        width,
        height,
      })),
    };
    const response = await send(outbound, url, secrets.secret ?? '', deliveryId, now(), 'post.created', data);
    if (!response.ok) throw await httpFailure(response, url);
    await response.body?.cancel();
    const location = response.headers.get('location');
    return { remoteUrl: location ? new URL(location, url).href : null };
  },

  async test({ serviceId, config, secrets, outbound, now, testId }) {
    const data = { service_id: serviceId, message: 'A test event from Waypost: the URL and the secret work.' };
    try {
      const response = await send(outbound, config.url ?? '', secrets.secret ?? '', testId, now(), 'test', data);
      const body = await response.text().catch(() => '');
      return { ok: response.ok, status: response.status, detail: excerpt(body) };
    } catch (error) {
      return unreachable(error);
    }
  },
};

/** One signed event. The payload has the shape the spec recommends: {type, timestamp, data}. */
function send(outbound: Outbound, url: string, secret: string, id: string, at: number, type: string, data: unknown) {
  const sentAt = new Date(at);
  const body = JSON.stringify({ type, timestamp: sentAt.toISOString(), data });
  const signature = new Webhook(secret).sign(id, sentAt, body);
  return outbound.request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    },
    body,
  });
}
