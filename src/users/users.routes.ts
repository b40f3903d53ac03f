import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { getUser, toPublicProfile } from './users.logic.ts';
import { UserProfileSchema, UsernameParams } from './users.schemas.ts';

export async function usersRoutes(fastify: FastifyInstance, { db }: { db: Db }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(UserProfileSchema);

  app.get(
    '/users/:username',
    {
      schema: {
        summary: "A user's public profile",
        description: 'No token needed. An unknown username is 404.',
        tags: ['users'],
        params: UsernameParams,
        response: { 200: Type.Ref('UserProfile'), ...problems(404) },
      },
    },
    async (request) => toPublicProfile(await getUser(db, request.params.username)),
  );
}
