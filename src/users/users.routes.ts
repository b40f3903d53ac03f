import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { getPublicProfile } from './users.logic.ts';
import { UserProfileSchema, UsernameParams } from './users.schemas.ts';

export async function usersRoutes(fastify: FastifyInstance, { db, baseUrl }: { db: Db; baseUrl: string }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(UserProfileSchema);

  app.get(
    '/users/:username',
    {
      schema: {
        summary: "A user's public profile",
        description:
          'No token needed. An unknown username is 404. Counts public items only, and links the feeds of the public posts.',
        tags: ['users'],
        params: UsernameParams,
        response: { 200: Type.Ref('UserProfile'), ...problems(400, 404) },
      },
    },
    async (request) => getPublicProfile(db, request.params.username, baseUrl),
  );
}
