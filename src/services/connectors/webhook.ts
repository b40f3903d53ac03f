// webhook: POSTs each post as JSON, signed per the Standard Webhooks specification
// (standardwebhooks.com): headers `webhook-id`, `webhook-timestamp`, `webhook-signature`.
// The spec: "webhook-id: the unique message identifier ... the same when a message is retried",
// so the id is the delivery's id and a receiver can drop a repeat.
import { Webhook } from 'standardwebhooks';
import { Type } from 'typebox';
import { HTTP_URL_PATTERN, httpFailure, type Connector } from './connector.ts';

export const webhook: Connector = {
  description: 'POSTs each post as JSON to a URL, signed per the Standard Webhooks specification.',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      url: Type.String({ pattern: HTTP_URL_PATTERN, maxLength: 2000, description: 'Where to POST.' }),
      secret: Type.String({
        // Standard Webhooks: the signing secret is base64, shown with a `whsec_` prefix, 24 to 64 bytes.
        pattern: '^whsec_[A-Za-z0-9+/]{32,88}={0,2}$',
        description: 'The signing secret, `whsec_` then base64 of 24 to 64 random bytes. Never returned.',
      }),
    },
    { additionalProperties: false },
  ),
  secretFields: ['secret'],

  async publish({ post, config, secrets, deliveryId, outbound, now }) {
    const url = config.url ?? '';
    const sentAt = new Date(now());
    // The payload shape the spec recommends: {type, timestamp, data}.
    const body = JSON.stringify({ type: 'post.created', timestamp: sentAt.toISOString(), data: post });
    const signature = new Webhook(secrets.secret ?? '').sign(deliveryId, sentAt, body);
    const response = await outbound.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': deliveryId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
    if (!response.ok) throw await httpFailure(response, url);
    await response.body?.cancel();
    const location = response.headers.get('location');
    return { remoteUrl: location ? new URL(location, url).href : null };
  },
};
