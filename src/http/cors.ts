// CORS for browser apps on other origins. CORS here never allows credentials, and the session
// cookie counts only for same-origin requests (docs/oauth.md "The web app's own access"), so
// opening it to every origin exposes nothing a cross-site page could not already do without a token.
// oidc-provider answers CORS for /oauth/token and /oauth/revoke itself, per client (the origins
// of a public client's redirect URIs); the people's pages get no CORS at all.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const NO_CORS = /^\/(?:oauth\/|account(?:\/|$)|app\/|setup(?:\/|$)|register(?:\/|$)|$|\?)/;

async function corsPlugin(app: FastifyInstance) {
  await app.register(cors, {
    delegator: (request, callback) => {
      // An OPTIONS request that is not a preflight gets no CORS, so it falls through to the
      // 404/405 problem of src/http/plumbing.ts instead of the plugin's plain-text 400.
      const notPreflight =
        request.method === 'OPTIONS' && (!request.headers.origin || !request.headers['access-control-request-method']);
      const api = !NO_CORS.test(request.url ?? '/') && !notPreflight;
      callback(null, {
        origin: api ? '*' : false,
        credentials: false,
        methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
        // The MCP transport's own headers (docs/mcp.md), for assistants that run in a browser.
        allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key', 'Mcp-Protocol-Version'],
        exposedHeaders: ['WWW-Authenticate', 'Link', 'Location', 'Retry-After', 'X-Request-Id'],
        maxAge: 600,
      });
    },
  });
}

export default fp(corsPlugin, { name: 'cors' });
