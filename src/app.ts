// buildApp(deps): the whole HTTP application, every plugin and feature registered explicitly
// (no auto-loading), so a reader sees here what exists. main.ts and the tests both use it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportRoutes } from './archive/export.routes.ts';
import { accountTraces } from './account-traces.ts';
import { signInLimits } from './account/sign-in-limits.logic.ts';
import type { Config } from './config.ts';
import { mediaStorage } from './media/media.storage.ts';
import type { Database } from './db/database.ts';
import auth from './http/auth.ts';
import cors from './http/cors.ts';
import { handleError } from './http/errors.ts';
import { buildSerializer } from './http/serializers.ts';
import { healthRoutes } from './http/health.ts';
import { RequestLogController } from './logger.ts';
import metrics, { type ResponseLabels } from './http/metrics.ts';
import openapi from './http/openapi.ts';
import { cursorsFor } from './core/cursors.ts';
import refuseNul from './http/nul.ts';
import plumbing, { clientErrorHandler, frameworkErrors, requestId, securityHeaders } from './http/plumbing.ts';
import { importsRoutes } from './imports/imports.routes.ts';
import { infoRoutes } from './info/info.routes.ts';
import { historyRoutes } from './history/history.routes.ts';
import { refreshHistory } from './history/refresh.ts';
import { placesRoutes } from './places/places.routes.ts';
import { visitsRoutes } from './visits/visits.routes.ts';
import { searchRoutes } from './search/search.routes.ts';
import { mcpRoutes } from './mcp/mcp.routes.ts';
import { locationsRoutes } from './locations/locations.routes.ts';
import { mediaJobsFor, type MediaJobs } from './media/image-workers.ts';
import { mediaRoutes } from './media/media.routes.ts';
import { deliveriesRoutes } from './posts/deliveries.routes.ts';
import { postsRoutes } from './posts/posts.routes.ts';
import { postDeliveries } from './services/post-deliveries.ts';
import { PageCache } from './items/public-pages.ts';
import { bearerResolver, cachedBearerResolver } from './oauth/bearer.ts';
import { interactionRoutes } from './oauth/interaction.routes.ts';
import { permissionsRoutes } from './oauth/permissions.routes.ts';
import { deleteProviderSessions } from './oauth/oauth.repo.ts';
import { providerRoutes } from './oauth/provider.routes.ts';
import { createProvider } from './oauth/provider.ts';
import { secretsKey } from './services/secrets.ts';
import { servicesRoutes } from './services/services.routes.ts';
import { trackersRoutes } from './services/trackers.routes.ts';
import { settingsRoutes } from './settings/settings.routes.ts';
import { usersRoutes } from './users/users.routes.ts';
import { browserSessions } from './account/sessions.http.ts';
import { signInRoutes } from './account/sign-in.routes.ts';
import { accountDeleteRoutes } from './web/account-delete.routes.ts';
import { passwordRoutes } from './web/password.routes.ts';
import { accountRoutes } from './web/account.routes.ts';
import { viewsRoutes } from './views/views.routes.ts';
import { viewPageHtml, viewProblemHtml } from './web/view-page.html.ts';
import { visitorRoutes } from './web/visitor.routes.ts';
import { assetRoutes } from './web/assets.ts';
import { webAppRoutes } from './web/app.routes.ts';
import { APP_PAGES } from './web/registry.ts';
import { publicPagesRoutes } from './web/profile/profile.routes.ts';
import { trackerPagesRoutes } from './web/trackers/trackers.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The image worker processes (src/media/image-workers.ts). */
    mediaJobs: MediaJobs;
  }
}

export interface AppDeps {
  config: Config;
  database: Database;
  /** A pino logger; tests pass none to stay quiet. */
  logger?: FastifyBaseLogger;
  /** Called when jobs were queued, to wake an in-process worker. */
  onJobsQueued?: () => void;
}

/**
 * The HTTP server fastify would make itself (the same timeouts), answering anonymous reads of
 * public pages that are known current before any routing (src/items/public-pages.ts).
 */
function serverFor(pages: PageCache | undefined, record: (labels: ResponseLabels, seconds: number) => void) {
  return (handler: (request: IncomingMessage, response: ServerResponse) => void, options: FastifyServerOptions) => {
    const server = createServer((request, response) => {
      const started = performance.now();
      const route = pages?.replay(request, response, requestId);
      if (route === undefined) return handler(request, response);
      record({ method: 'GET', route, statusCode: 200 }, (performance.now() - started) / 1000);
    });
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}

export async function buildApp({ config, database, logger, onJobsQueued }: AppDeps): Promise<FastifyInstance> {
  // One memory for the public pages of every kind, so its bound holds for all of them.
  const pages =
    config.publicCacheBytes > 0
      ? new PageCache({ maxBytes: config.publicCacheBytes, revalidateMs: config.publicCacheRevalidateMs })
      : undefined;
  const headers = securityHeaders(config.baseUrl);
  const app = Fastify({
    // Anonymous reads of public pages that are known current are answered before routing
    // (src/items/public-pages.ts); everything else goes to fastify.
    serverFactory: serverFor(pages, (labels, seconds) => app.recordResponse(labels, seconds)),
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    genReqId: requestId,
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // On shutdown: idle keep-alive sockets close at once, requests in flight finish.
    forceCloseConnections: 'idle',
    // Requests during shutdown, router failures and requests Node cannot parse are answered as
    // problem+json with the usual headers (src/http/plumbing.ts), not in fastify's format.
    return503OnClosing: false,
    frameworkErrors: frameworkErrors(headers),
    clientErrorHandler: clientErrorHandler(headers),
    // Answers are written by fastify's serializer, from schemas it can compile into plain code.
    schemaController: { compilersFactory: { buildSerializer } },
    ajv: {
      // Unknown fields are an error, not silently dropped (docs/api.md: no mass assignment).
      customOptions: { removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (pages) {
    // Every answer goes by the copies, which drop themselves after a write (src/items/public-pages.ts).
    app.addHook('onSend', (request, reply, payload, done) => {
      pages.answered(request.method, reply.statusCode);
      done(null, payload);
    });
    app.addHook('preClose', (done) => {
      pages.close();
      done();
    });
  }
  app.setErrorHandler(handleError);
  await app.register(plumbing, { headers });
  await app.register(refuseNul);
  await app.register(openapi, { baseUrl: config.baseUrl });
  await app.register(metrics, { token: config.metricsToken, loopback: config.metricsLoopback });
  await app.register(cors);

  const { db } = database;
  const cursors = cursorsFor(config.secretKey);
  const provider = createProvider(config, db, app.log);
  app.decorate('oauthProvider', provider);
  await app.register(auth, {
    resolve: cachedBearerResolver(db, bearerResolver(provider)),
    session: browserSessions(db, config.baseUrl, config.secretKey),
  });
  await app.register(providerRoutes, { provider, config, db });
  await app.register(interactionRoutes, { provider, db, config });
  await app.register(permissionsRoutes, { provider, db });
  await app.register(healthRoutes, { database });
  await app.register(usersRoutes, { db, baseUrl: config.baseUrl });
  await app.register(visitorRoutes, { db, config });
  // Signing out also ends the authorization server's own sign-in memory, so /oauth/authorize asks again.
  await app.register(signInRoutes, { db, config, onSignOut: (userId) => deleteProviderSessions(db, userId) });
  await app.register(accountRoutes, { db, config });
  await app.register(assetRoutes, { config });
  await app.register(webAppRoutes, { db, config, pages: APP_PAGES });
  await app.register(passwordRoutes, { db, config });
  await app.register(accountDeleteRoutes, {
    database,
    config,
    traces: accountTraces(mediaStorage(config), signInLimits(config)),
  });
  await app.register(publicPagesRoutes, { db, config, pages, cursors });
  await app.register(trackerPagesRoutes, { db, config });
  const deliveries = postDeliveries({ baseUrl: config.baseUrl, maxAttempts: config.deliveryMaxAttempts });
  await app.register(postsRoutes, { db, baseUrl: config.baseUrl, pages, cursors, deliveries, onJobsQueued });
  // Image work runs in worker processes, stopped with the app.
  const mediaJobs = mediaJobsFor(config);
  app.decorate('mediaJobs', mediaJobs);
  app.addHook('onClose', (_app, done) => {
    mediaJobs.close();
    done();
  });
  await app.register(mediaRoutes, { db, config, pages, jobs: mediaJobs, cursors });
  await app.register(locationsRoutes, { db, baseUrl: config.baseUrl, pages, cursors });
  await app.register(importsRoutes, { db, config, onJobsQueued });
  await app.register(historyRoutes, { db, baseUrl: config.baseUrl });
  await app.register(visitsRoutes, { db, baseUrl: config.baseUrl, cursors, refresh: refreshHistory });
  await app.register(placesRoutes, { db });
  await app.register(searchRoutes, { db, baseUrl: config.baseUrl, cursors });
  await app.register(mcpRoutes, {
    db,
    config,
    pages,
    deps: { cursors, deliveries, deliveriesOf: deliveries.of, refresh: refreshHistory, onJobsQueued },
  });
  await app.register(servicesRoutes, {
    db,
    secretsKey: secretsKey(config.secretKey),
    baseUrl: config.baseUrl,
    outboundAllow: config.outboundAllow,
  });
  await app.register(deliveriesRoutes, { db, deliveries, onJobsQueued });
  await app.register(trackersRoutes, { db });
  await app.register(settingsRoutes, { db });
  await app.register(viewsRoutes, {
    db,
    baseUrl: config.baseUrl,
    cursors,
    pages: { page: viewPageHtml, problem: viewProblemHtml },
  });
  await app.register(infoRoutes, { config });
  await app.register(exportRoutes, { database, config });

  return app;
}
