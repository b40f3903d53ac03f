// buildApp(deps): the whole HTTP application, every plugin and feature registered explicitly
// (no auto-loading), so a reader sees here what exists. main.ts and the tests both use it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import auth, { type BearerResolver } from './http/auth.ts';
import { handleError } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import metrics from './http/metrics.ts';
import openapi from './http/openapi.ts';
import plumbing, { requestId } from './http/plumbing.ts';
import { secretsKey } from './services/secrets.ts';
import { servicesRoutes } from './services/services.routes.ts';
import { usersRoutes } from './users/users.routes.ts';
import { pagesRoutes } from './web/pages.routes.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  /** A pino logger; tests pass none to stay quiet. */
  logger?: FastifyBaseLogger;
  /** Resolves bearer tokens; default: none resolves (tests of other features pass their own). */
  resolveBearer?: BearerResolver;
}

// Until the OAuth server is mounted no token exists, so none resolves.
const noTokens: BearerResolver = async () => undefined;

export async function buildApp({
  config,
  database,
  logger,
  resolveBearer = noTokens,
}: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    genReqId: requestId,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // On shutdown: idle keep-alive sockets close at once, requests in flight finish.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    ajv: {
      // Unknown fields are an error, not silently dropped (API.md: no mass assignment).
      customOptions: { removeAdditional: false, allErrors: true, coerceTypes: 'array', useDefaults: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setErrorHandler(handleError);
  await app.register(plumbing);
  await app.register(openapi, { baseUrl: config.baseUrl });
  await app.register(metrics, { token: config.metricsToken });
  await app.register(auth, { resolve: resolveBearer });

  const { db } = database;
  await app.register(healthRoutes, { database });
  await app.register(usersRoutes, { db });
  await app.register(pagesRoutes, { db, config });
  await app.register(servicesRoutes, { db, secretsKey: secretsKey(config.secretKey) });

  return app;
}
