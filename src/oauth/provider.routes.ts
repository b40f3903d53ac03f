// Mounts oidc-provider's own endpoints (/oauth/* and the RFC 8414 metadata) in fastify.
// Encapsulated: fastify's body parsers are removed here so the provider reads the raw request
// stream itself, and each reply is hijacked. Fastify still logs and counts a hijacked reply
// (its onResponse hooks run when the raw response finishes), but headers set through `reply`
// before the hijack would be lost: they are copied onto the raw response (X-Request-Id, the
// security headers). Self-registration passes the limit per address first.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { nowMs } from '../lib/time.ts';
import { OAUTH_ROUTES, requestLoggers } from './provider.ts';
import { giveBackRegistration, registrationLimits, reserveRegistration } from './registration-limits.ts';

export async function providerRoutes(
  app: FastifyInstance,
  { provider, config, db }: { provider: Provider; config: Config; db: Db },
) {
  const callback = provider.callback();
  const host = new URL(config.baseUrl).host;
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
  // Static routes (this one, /oauth/interaction/... registered elsewhere) win over the wildcard.
  if (config.clientRegistrationOpen) {
    const limits = registrationLimits(config);
    app.post(OAUTH_ROUTES.registration, options, async (request, reply) => {
      const reservation = await reserveRegistration(db, limits, request.ip, nowMs());
      if (!reservation.ok) {
        const seconds = reservation.retryAfterSeconds;
        throw new AppError(
          'too_many_registrations',
          `This address registered ${limits.perAddress} apps within the hour; try again in ${seconds} seconds.`,
          { headers: { 'retry-after': String(seconds) } },
        );
      }
      try {
        await handler(request, reply);
      } finally {
        if (reply.raw.statusCode !== 201) await giveBackRegistration(db, reservation);
      }
    });
  }
  app.all('/oauth/*', options, handler);
  app.get('/.well-known/oauth-authorization-server', options, handler);
  // /.well-known/openid-configuration is deliberately not forwarded: this is not OpenID Connect.
}
