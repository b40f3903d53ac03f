// mastodon: publishes a status through the Mastodon REST API (also spoken by Pleroma, Akkoma,
// GoToSocial). Plain fetch through the outbound guard rather than `masto`: the guard must own
// the socket, and one endpoint does not pay for a client library.
// POST /api/v1/statuses (docs.joinmastodon.org/methods/statuses/#create): "Idempotency-Key:
// Prevent duplicate submissions of the same status" - the delivery id, stable across retries.
import { Type } from 'typebox';
import { DeliveryError, HTTP_URL_PATTERN, httpFailure, type Connector } from './connector.ts';

export const mastodon: Connector = {
  description: 'Publishes each post as a status on a Mastodon-compatible server.',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      instance_url: Type.String({
        pattern: HTTP_URL_PATTERN,
        maxLength: 2000,
        description: 'The server, e.g. https://mastodon.social',
      }),
      access_token: Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'An access token with the write:statuses scope. Never returned.',
      }),
    },
    { additionalProperties: false },
  ),
  secretFields: ['access_token'],

  async publish({ post, config, secrets, deliveryId, outbound }) {
    const url = new URL('api/v1/statuses', withSlash(config.instance_url ?? '')).href;
    // A private post goes to followers only, never to the public timeline.
    const visibility = post.scope === 'public' ? 'public' : 'private';
    const response = await outbound.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secrets.access_token ?? ''}`,
        'content-type': 'application/json',
        'idempotency-key': deliveryId,
      },
      body: JSON.stringify({ status: post.text, visibility }),
    });
    if (!response.ok) throw await httpFailure(response, url);
    const status = (await response.json().catch(() => null)) as { url?: unknown; uri?: unknown } | null;
    if (!status) throw new DeliveryError(`the server at ${new URL(url).origin} answered without a status`, false);
    const remote = typeof status.url === 'string' ? status.url : typeof status.uri === 'string' ? status.uri : null;
    return { remoteUrl: remote };
  },
};

function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}
