import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import { info } from './info.logic.ts';
import { InfoSchema } from './info.schemas.ts';

export async function infoRoutes(app: FastifyInstance, { config }: { config: Config }) {
  app.addSchema(InfoSchema);
  const answer = info(config);
  app.get(
    '/info',
    {
      schema: {
        summary: 'What this server is and its limits',
        description: 'No token needed.',
        tags: ['info'],
        response: { 200: Type.Ref('Info') },
      },
    },
    async () => answer,
  );
}
