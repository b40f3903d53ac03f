// CORS for browser apps on other origins. CORS here never allows credentials, and the session
// cookie counts only for same-origin requests (docs/oauth.md "The web app's own access"), so
// opening it to every origin exposes nothing a cross-site page could not already do without a token.
// oidc-provider answers CORS for /oauth/token and /oauth/revoke itself, per client (the origins
// of a public client's redirect URIs); the people's pages get no CORS at all.
//
// The answer is the same for every origin, so it is a few constant headers set by one hook
// (what @fastify/cors answered with a per-request options delegator, at several times the cost
// on every request of the API).
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

const NO_CORS = /^\/(?:oauth\/|account(?:\/|$)|app\/|setup(?:\/|$)|register(?:\/|$)|$|\?)/;
const EXPOSED = 'WWW-Authenticate, Link, Location, Retry-After, X-Request-Id';
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
// Mcp-Protocol-Version: the MCP transport's own header (docs/mcp.md), for assistants in a browser.
const ALLOWED = 'Authorization, Content-Type, X-Request-Id, Idempotency-Key, Mcp-Protocol-Version';
const MAX_AGE = '600';

/** Every answer varies on Origin (some paths get CORS and some do not). */
function varyOnOrigin(reply: FastifyReply) {
  const vary = reply.getHeader('vary');
  if (vary === undefined) return void reply.header('vary', 'Origin');
  const names = String(vary)
    .split(',')
    .map((name) => name.trim().toLowerCase());
  if (!names.includes('origin') && !names.includes('*')) void reply.header('vary', `${String(vary)}, Origin`);
}

async function corsPlugin(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    varyOnOrigin(reply);
    const options = request.method === 'OPTIONS';
    // An OPTIONS request that is not a preflight gets no CORS, so it falls through to the
    // 404/405 problem of src/http/plumbing.ts.
    const preflight =
      options && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
    if ((options && !preflight) || NO_CORS.test(request.url)) return done();
    void reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED);
    if (!preflight) return done();
    void reply
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', ALLOWED)
      .header('access-control-max-age', MAX_AGE)
      .code(204)
      .header('content-length', '0')
      .send();
  });
  // Preflights are answered by the hook above on any path; other OPTIONS requests end here
  // and go on to the not-found handler (404, or 405 on a known path).
  app.options('*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());
}

export default fp(corsPlugin, { name: 'cors' });
