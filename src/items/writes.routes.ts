// The write endpoints an item kind shares beside its reads (src/items/reads.routes.ts),
// registered once per kind from the kind's own functions:
//
//   DELETE /<kind>/id/<id>   delete one of your items      the kind's write permission
//   POST /<kind>/id/<id>     change one (posts and media)   the kind's write permission
//
// Who may is src/items/access.ts; a private item also needs `get_private_scope`, as reading it does.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type, type TObject } from 'typebox';
import type { Auth } from '../core/caller.ts';
import type { Permission } from '../core/permissions.ts';
import { problems } from '../http/schemas.ts';
import { IdParams } from './items.schemas.ts';
import type { ItemTable } from './items.repo.ts';

export interface ItemWrites<C> {
  table: ItemTable;
  /** One of the kind, in words: `post`. */
  one: string;
  permission: Permission;
  /** What else goes when one is deleted, for the route's description. */
  alsoDeleted?: string;
  delete(id: string, auth: Auth): Promise<void>;
  /** POST /<kind>/id/<id>: a partial change, answered with the changed object. */
  change?: {
    summary: string;
    /** What the body takes, for the description: `` `{scope}` (partial) ``. */
    takes: string;
    body: TObject;
    objectRef: string;
    apply(id: string, change: C, auth: Auth): Promise<unknown>;
  };
}

const CHANGE_RULES =
  "Another person's item and an id that does not exist get the same 404. A private one also needs " +
  '`get_private_scope`, as reading it does. Public pages, counts and ETags change at once.';

export function registerItemWrites<C>(fastify: FastifyInstance, kind: ItemWrites<C>): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const path = `/${kind.table}/id/:id`;
  app.delete(
    path,
    {
      config: { permission: kind.permission },
      schema: {
        summary: `Delete one of your ${kind.table}`,
        description:
          `Deletes the ${kind.one} for good; 204. Needs \`${kind.permission}\`. Another person's ${kind.one} and an ` +
          'id that does not exist get the same 404. A private one also needs `get_private_scope`, as reading it ' +
          'does: without it 401 `insufficient_scope` and nothing is deleted. Public counts and pages change at once.' +
          (kind.alsoDeleted ?? ''),
        tags: [kind.table],
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await kind.delete(request.params.id, request.auth!);
      return reply.code(204).send(null);
    },
  );
  const { change } = kind;
  if (!change) return;
  app.post(
    path,
    {
      config: { permission: kind.permission },
      schema: {
        summary: change.summary,
        description: `Takes ${change.takes}. Needs \`${kind.permission}\`. ${CHANGE_RULES} Answers the ${kind.one}.`,
        tags: [kind.table],
        params: IdParams,
        body: change.body,
        response: { 200: Type.Ref(change.objectRef), ...problems(400, 401, 404) },
      },
    },
    async (request) => change.apply(request.params.id, request.body as C, request.auth!),
  );
}
