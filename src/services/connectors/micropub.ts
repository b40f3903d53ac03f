// micropub: W3C Micropub create (www.w3.org/TR/micropub/ 3.3): a form-encoded POST with
// `h=entry` and `content`, bearer token in the Authorization header (3.8); "the server MUST
// respond with ... HTTP 201 Created or 202 Accepted, and MUST return a Location header".
// Micropub has no idempotency key, so a retry after a lost answer can post twice; the
// worker's lease keeps that to the crash case.
import { Type } from 'typebox';
import { HTTP_URL_PATTERN, httpFailure, type Connector } from './connector.ts';

export const micropub: Connector = {
  description: 'Creates an h-entry on a site through its W3C Micropub endpoint.',
  capabilities: ['publish'],
  configSchema: Type.Object(
    {
      endpoint: Type.String({ pattern: HTTP_URL_PATTERN, maxLength: 2000, description: 'The Micropub endpoint.' }),
      access_token: Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'A token with the create scope. Never returned.',
      }),
    },
    { additionalProperties: false },
  ),
  secretFields: ['access_token'],

  async publish({ post, config, secrets, outbound }) {
    const url = config.endpoint ?? '';
    const form = new URLSearchParams({ h: 'entry', content: post.text, published: isoTime(post.time) });
    // The `visibility` extension (indieweb.org/Micropub-extensions) keeps a private post off
    // the public site where the server understands it.
    if (post.scope === 'private') form.set('visibility', 'private');
    if (post.location) form.set('location', `geo:${post.location.lat},${post.location.lon}`);
    const response = await outbound.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secrets.access_token ?? ''}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
    });
    if (!response.ok) throw await httpFailure(response, url);
    await response.body?.cancel();
    const location = response.headers.get('location');
    return { remoteUrl: location ? new URL(location, url).href : null };
  },
};

function isoTime(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}
