// Deleting items through the API: one post, medium or location by id, and a time
// range of locations. Each needs the kind's write permission; the rules for another person's
// item and for private items are in deletion.logic.ts and in each route's description.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { rejectEmptyNumbers } from '../http/empty-numbers.ts';
import { problems } from '../http/schemas.ts';
import type { ItemTable } from '../items/items.repo.ts';
import { IdParams, ScopeSchema } from '../items/items.schemas.ts';
import { TIME_LIMIT_S } from '../lib/time.ts';
import { mediaStorage } from '../media/media.storage.ts';
import type { Permission } from '../core/permissions.ts';
import { deleteItem, deleteLocations } from './deletion.logic.ts';

const KINDS: { table: ItemTable; permission: Permission; one: string; extra: string }[] = [
  {
    table: 'posts',
    permission: 'create_post',
    one: 'post',
    extra:
      ' Its delivery records and queued deliveries go with it; copies already delivered to other services stay there.',
  },
  {
    table: 'media',
    permission: 'upload_media',
    one: 'medium',
    extra:
      ' Posts that name it keep their text and drop it from `media_ids`. The file goes when no other medium (of any account) has the same content.',
  },
  { table: 'locations', permission: 'write_locations', one: 'location', extra: '' },
];

const Seconds = (description: string) => Type.Number({ minimum: -TIME_LIMIT_S, maximum: TIME_LIMIT_S, description });

const RangeQuery = Type.Object(
  {
    since_time: Seconds('Delete points with `time >= since_time` (Unix epoch seconds). Required.'),
    until_time: Seconds('... and `time < until_time`. Required.'),
    scope: Type.Optional(ScopeSchema),
  },
  { additionalProperties: false },
);

const emptyTimesAre400 = rejectEmptyNumbers(['since_time', 'until_time']);

export async function deletionRoutes(fastify: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const storage = mediaStorage(config.dataDir);

  for (const kind of KINDS) {
    app.delete(
      `/${kind.table}/id/:id`,
      {
        config: { permission: kind.permission },
        schema: {
          summary: `Delete one of your ${kind.table}`,
          description:
            `Deletes the ${kind.one} for good; 204. Needs \`${kind.permission}\`. Another person's ${kind.one} and an ` +
            'id that does not exist get the same 404. A private one also needs `get_private_scope`, as reading it ' +
            'does: without it 401 `insufficient_scope` and nothing is deleted. Public counts and pages change at once.' +
            kind.extra,
          tags: [kind.table],
          params: IdParams,
          response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(400, 401, 404) },
        },
      },
      async (request, reply) => {
        await deleteItem(db, storage, kind.table, request.params.id, request.auth!);
        return reply.code(204).send(null);
      },
    );
  }

  app.delete(
    '/locations',
    {
      config: { permission: 'write_locations' },
      preValidation: emptyTimesAre400,
      schema: {
        summary: 'Delete your locations in a time range',
        description:
          'Deletes your points with `since_time <= time < until_time`; both are required (a client that means ' +
          'everything says so with -1e11 and 1e11). Without `scope` both scopes go, which also needs ' +
          '`get_private_scope` (401 `insufficient_scope` otherwise, nothing deleted); `scope=public` needs only ' +
          '`write_locations`. 200 with how many points were deleted (0 for an empty range).',
        tags: ['locations'],
        querystring: RangeQuery,
        response: {
          200: Type.Object({ deleted: Type.Integer({ minimum: 0 }) }, { description: 'Deleted.' }),
          ...problems(400, 401),
        },
      },
    },
    async (request) => deleteLocations(db, request.auth!, request.query),
  );
}
