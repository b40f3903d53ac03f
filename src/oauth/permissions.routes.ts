import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { listPermissions, withdrawPermission } from './permissions.logic.ts';
import { PermissionParams, PermissionSchema } from './permissions.schemas.ts';

export async function permissionsRoutes(fastify: FastifyInstance, { provider, db }: { provider: Provider; db: Db }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(PermissionSchema);

  app.get(
    '/permissions',
    {
      config: { auth: 'required' },
      schema: {
        summary: 'Every permission, and which the calling token has',
        description:
          'Needs a valid access token and no particular permission. Lists every permission the service defines, ' +
          'with `granted` telling whether the calling token has it now (a permission withdrawn since the token was ' +
          'issued counts as not granted).',
        tags: ['permissions'],
        response: { 200: Type.Array(Type.Ref('Permission')), ...problems(401) },
      },
    },
    async (request) => listPermissions(request.auth!),
  );

  app.delete(
    '/permissions/:permission',
    {
      config: { auth: 'required' },
      schema: {
        summary: "Drop a permission from the calling token's grant",
        description:
          'The calling access token, its refresh token and every token later refreshed from them lose the permission ' +
          'at once. 204 also when it was not granted; 404 for a name the service does not define. To get it back, ' +
          'the app sends the person through authorization again.',
        tags: ['permissions'],
        params: PermissionParams,
        response: { 204: Type.Null({ description: 'Dropped (or was not granted).' }), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await withdrawPermission(provider, db, request.auth!, request.params.permission);
      return reply.code(204).send(null);
    },
  );
}
