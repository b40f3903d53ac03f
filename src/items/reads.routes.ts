// The four read endpoints every kind of item has (docs/api.md), registered once per
// kind from the kind's own list/get functions:
//
//   GET /<kind>/private            the token owner's private items    permission get_private_scope
//   GET /<kind>/public             the token owner's public items     a token, no permission
//   GET /<kind>/public/<username>  that user's public items           no token
//   GET /<kind>/id/<id>            one item                           docs/api.md "Scopes and who sees what"
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { rejectEmptyNumbers } from '../http/empty-numbers.ts';
import { problems } from '../http/schemas.ts';
import { UsernameParams } from '../users/users.schemas.ts';
import { ownerByUsername } from './items.logic.ts';
import { IdParams, type CollectionParams } from './items.schemas.ts';
import type { ItemKind } from './kinds.ts';
import { checkpoint, type PageCache } from './public-pages.ts';
import { readsExactly } from './access.ts';
import { pageReplies } from './reads.reply.ts';

const emptyNumbersAre400 = rejectEmptyNumbers(['count', 'since_time', 'until_time']);

export function registerItemReads<Q extends CollectionParams, T>(
  app: FastifyInstance,
  { db, baseUrl, pages, cursors }: { db: Db; baseUrl: string; pages?: PageCache | undefined; cursors: Cursors },
  kind: ItemKind<Q, T>,
): void {
  const path = `/${kind.table}`;
  const list = Type.Array(Type.Ref(kind.objectRef));
  const collection200 = {
    description:
      'A bare JSON array of objects. When there is a next page, the `Link` header (RFC 8288) names it with `rel="next"`.',
    content: {
      'application/json': { schema: list },
      ...Object.fromEntries(
        Object.entries(kind.representations ?? {}).map(([type, description]) => [type, { schema: { description } }]),
      ),
    },
  };

  const { sendPage, sendPublicPage } = pageReplies(kind, { baseUrl, pages });

  app.get(
    `${path}/private`,
    {
      config: { permission: 'get_private_scope' },
      preValidation: emptyNumbersAre400,
      schema: {
        summary: `The token owner's private ${kind.table}`,
        tags: [kind.tag],
        querystring: kind.query,
        response: { 200: collection200, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const owner = { id: request.auth!.userId, username: request.auth!.username };
      const ctx = { owner, scope: 'private' as const, query: request.query as Q, byOwner: true, exact: true, cursors };
      return sendPage(request, reply, ctx);
    },
  );

  app.get(
    `${path}/public`,
    {
      config: { auth: 'required' },
      preValidation: emptyNumbersAre400,
      schema: {
        summary: `The token owner's public ${kind.table}`,
        description: 'Needs a valid token and no permission (the specification, docs/api.md).',
        tags: [kind.tag],
        querystring: kind.query,
        response: { 200: collection200, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const owner = { id: request.auth!.userId, username: request.auth!.username };
      // The owner's own public items: exact with `get_private_scope`, else as strangers see them.
      const exact = readsExactly(owner.id, request.auth);
      return sendPage(request, reply, {
        owner,
        scope: 'public',
        query: request.query as Q,
        byOwner: true,
        exact,
        cursors,
      });
    },
  );

  app.get(
    `${path}/public/:username`,
    {
      preValidation: emptyNumbersAre400,
      schema: {
        summary: `A user's public ${kind.table}`,
        description:
          'No token needed. An unknown username is 404. A weak `ETag` names the version of the page; ' +
          '`If-None-Match` with it is 304 until the person adds, changes or removes an item or changes a setting. ' +
          'A server process may answer from a copy it confirmed less than `WAYPOST_PUBLIC_CACHE_REVALIDATE_MS` ' +
          'ago (default one second): a write through another process can take that long to show here.',
        tags: [kind.tag],
        params: UsernameParams,
        querystring: kind.query,
        response: {
          200: collection200,
          304: { description: 'Not modified: the page is still what the client has.', type: 'null' },
          ...problems(400, 404),
        },
      },
    },
    async (request, reply) => {
      const { username } = request.params as { username: string };
      const checked = checkpoint(pages);
      const { version, ...owner } = await ownerByUsername(db, username);
      const ctx = { owner, scope: 'public' as const, query: request.query as Q, byOwner: false, exact: false, cursors };
      return sendPublicPage(request, reply, ctx, { version, checked });
    },
  );

  app.get(
    `${path}/id/:id`,
    {
      config: { auth: 'optional' },
      schema: {
        summary: `One of the ${kind.table} by id`,
        description:
          "A public object needs no token. A private one needs its owner's token with `get_private_scope`: " +
          'no token is 401, the owner without the permission is 401 `insufficient_scope`, anyone else gets the ' +
          'same 404 as for an id that does not exist.',
        tags: [kind.tag],
        params: IdParams,
        response: { 200: Type.Ref(kind.objectRef), ...problems(400, 401, 404) },
      },
    },
    async (request) => kind.byId((request.params as { id: string }).id, request.auth),
  );
}
