// Mounts oidc-provider's own endpoints (/oauth/* and the RFC 8414 metadata) in fastify.
// Encapsulated: fastify's body parsers are removed here so the provider reads the raw request
// stream itself, and each reply is hijacked. A hijacked reply bypasses fastify's hooks, so
// this plugin carries over what they would have done: the headers set so far (X-Request-Id,
// the security headers), the "request completed" log line and the request metrics.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Counter, Histogram } from 'prom-client';
import { OAUTH_ROUTES, requestLoggers } from './provider.ts';

const KNOWN_PATHS = new Set<string>([...Object.values(OAUTH_ROUTES), '/.well-known/oauth-authorization-server']);

export async function providerRoutes(app: FastifyInstance, { provider }: { provider: Provider }) {
  const callback = provider.callback();
  app.removeAllContentTypeParsers();
  // Without any parser fastify answers 415 to every POST here; accept anything and leave the
  // stream unread for oidc-provider (it has its own size limit and content-type checks).
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const requests = app.metrics.getSingleMetric('http_requests_total') as Counter | undefined;
  const duration = app.metrics.getSingleMetric('http_request_duration_seconds') as Histogram | undefined;

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    requestLoggers.set(request.raw, request.log); // provider events log with this request id
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      // oidc-provider does its own CORS (per client); fastify's would make it skip its checks.
      if (value !== undefined && !name.startsWith('access-control-')) reply.raw.setHeader(name, value);
    }
    const path = request.url.split('?')[0] ?? '';
    reply.raw.once('finish', () => {
      const labels = {
        method: request.method,
        route: KNOWN_PATHS.has(path) ? path : '/oauth/*',
        status_code: String(reply.raw.statusCode),
      };
      requests?.inc(labels);
      duration?.observe(labels, reply.elapsedTime / 1000);
      request.log.info(
        { res: { statusCode: reply.raw.statusCode }, responseTime: reply.elapsedTime },
        'request completed',
      );
    });
    reply.hijack();
    await callback(request.raw, reply.raw);
  };

  const options = { schema: { hide: true } };
  // Static routes registered elsewhere (/oauth/interaction/...) win over this wildcard.
  app.all('/oauth/*', options, handler);
  app.get('/.well-known/oauth-authorization-server', options, handler);
  // /.well-known/openid-configuration is deliberately not forwarded: this is not OpenID Connect.
}
