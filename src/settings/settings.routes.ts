import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { changeSettingsObject, readSettingsObject } from './settings.api.ts';
import { SettingsChangeBody, SettingsSchema } from './settings.schemas.ts';

export async function settingsRoutes(fastify: FastifyInstance, { db }: { db: Db }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(SettingsSchema);

  app.get(
    '/settings',
    {
      config: { permission: 'get_settings' },
      schema: {
        summary: "The token owner's settings",
        tags: ['settings'],
        response: { 200: Type.Ref('Settings'), ...problems(401) },
      },
    },
    async (request) => readSettingsObject(db, request.auth!.userId),
  );

  app.post(
    '/settings',
    {
      config: { permission: 'update_settings' },
      // A wrong type in the body is a 400, never coerced (src/http/strict-body.ts).
      validatorCompiler: strictBody,
      schema: {
        summary: 'Change settings',
        description:
          'A partial settings object: only the fields sent change (in `default_scopes`, only the kinds named). ' +
          'Answers with the whole new settings. An unknown field, an unknown time zone or a value out of range ' +
          'is 400 naming each field, and nothing changes. New default scopes apply to items created afterwards; ' +
          'items already stored keep their scope.',
        tags: ['settings'],
        body: SettingsChangeBody,
        response: { 200: Type.Ref('Settings'), ...problems(400, 401) },
      },
    },
    async (request) => changeSettingsObject(db, request.auth!.userId, request.body),
  );
}
