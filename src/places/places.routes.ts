// GET /places, POST /places, GET|POST|DELETE /places/<id> (docs/api.md "Visits and trips").
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { IdParams } from '../items/items.schemas.ts';
import { changePlace, createPlace, deletePlace, getPlace, listPlaces } from './places.logic.ts';
import { NewPlaceBody, PlaceChangeBody, PlaceSchema } from './places.schemas.ts';

const READ_ACCESS = "Needs `get_private_scope`: places are never public. Another person's place is 404.";
const WRITE_ACCESS =
  'Needs `write_locations`, and `get_private_scope` because the answer shows the place (401 ' +
  "`insufficient_scope` naming the missing one). Another person's place is the same 404 as a missing id.";

export async function placesRoutes(fastify: FastifyInstance, { db }: { db: Db }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(PlaceSchema);

  app.get(
    '/places',
    {
      config: { permission: 'get_private_scope' },
      schema: {
        summary: "The token owner's places",
        description: `Every place, oldest first, with how many visits are at it. ${READ_ACCESS}`,
        tags: ['places'],
        response: { 200: Type.Array(Type.Ref('Place')), ...problems(401) },
      },
    },
    async (request) => listPlaces(db, request.auth!),
  );

  app.post(
    '/places',
    {
      config: { permission: 'write_locations' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Draw a place',
        description:
          'A named place; visits within `radius_m` (default 100) join it when their days are detected again, ' +
          `which the next read of visits does. Answers 201 with the place and its address in \`Location\`. ${WRITE_ACCESS}`,
        tags: ['places'],
        body: NewPlaceBody,
        response: { 201: Type.Ref('Place'), ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const place = await createPlace(db, request.auth!, request.body);
      return reply.code(201).header('location', `/places/${place.id}`).send(place);
    },
  );

  app.get(
    '/places/:id',
    {
      config: { permission: 'get_private_scope' },
      schema: {
        summary: 'A place',
        description: READ_ACCESS,
        tags: ['places'],
        params: IdParams,
        response: { 200: Type.Ref('Place'), ...problems(400, 401, 404) },
      },
    },
    async (request) => getPlace(db, request.auth!, request.params.id),
  );

  app.post(
    '/places/:id',
    {
      config: { permission: 'write_locations' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Rename, move or merge a place',
        description:
          'Only the fields sent change. Moving it or changing its radius detects the days of the visits around it ' +
          'again. `merge_into` (sent alone) gives its visits and corrections to another place and deletes it; the ' +
          `answer is then the other place. ${WRITE_ACCESS}`,
        tags: ['places'],
        params: IdParams,
        body: PlaceChangeBody,
        response: { 200: Type.Ref('Place'), ...problems(400, 401, 404) },
      },
    },
    async (request) => changePlace(db, request.auth!, request.params.id, request.body),
  );

  app.delete(
    '/places/:id',
    {
      config: { permission: 'write_locations' },
      schema: {
        summary: 'Delete a place',
        description:
          'The points stay; the visits at the place are detected again and find another place (a new unnamed ' +
          `one if none is near), and corrections naming it are forgotten. ${WRITE_ACCESS}`,
        tags: ['places'],
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deletePlace(db, request.auth!, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
