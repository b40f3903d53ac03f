// Mounts oidc-provider's own endpoints (/oauth/* and the RFC 8414 metadata) in fastify.
// Encapsulated: fastify's body parsers are removed here so the provider reads the raw request
// stream itself, and each reply is hijacked. Fastify still logs and counts a hijacked reply
// (its onResponse hooks run when the raw response finishes), but headers set through `reply`
// before the hijack would be lost: they are copied onto the raw response (X-Request-Id, the
// security headers).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { requestLoggers } from './provider.ts';

export async function providerRoutes(
  app: FastifyInstance,
  { provider, baseUrl }: { provider: Provider; baseUrl: string },
) {
  const callback = provider.callback();
  const host = new URL(baseUrl).host;
  app.removeAllContentTypeParsers();
  // Without any parser fastify answers 415 to every POST here; accept anything and leave the
  // stream unread for oidc-provider (it has its own size limit and content-type checks).
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    requestLoggers.set(request.raw, request.log); // provider events log with this request id
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      // oidc-provider does its own CORS (per client); fastify's would make it skip its checks.
      if (value !== undefined && !name.startsWith('access-control-')) reply.raw.setHeader(name, value);
    }
    // oidc-provider builds absolute URLs from the Host header; the configured origin decides
    // instead, so a forged Host cannot put another address into its answers.
    request.raw.headers.host = host;
    delete request.raw.headers['x-forwarded-host'];
    reply.hijack();
    await callback(request.raw, reply.raw);
  };

  const options = { schema: { hide: true } };
  // Static routes registered elsewhere (/oauth/interaction/...) win over this wildcard.
  app.all('/oauth/*', options, handler);
  app.get('/.well-known/oauth-authorization-server', options, handler);
  // /.well-known/openid-configuration is deliberately not forwarded: this is not OpenID Connect.
}
