import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { problems } from './schemas.ts';

const Status = Type.Object({ status: Type.Literal('ok') });

export async function healthRoutes(app: FastifyInstance, options: { database: Database }) {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the database answers',
        tags: ['operations'],
        response: { 200: Status, ...problems(503) },
      },
    },
    async (request) => {
      try {
        await options.database.ping();
      } catch (error) {
        request.log.warn({ err: error }, 'database not reachable');
        throw new AppError('not_ready', 'The database is not reachable.');
      }
      return { status: 'ok' as const };
    },
  );
}
