// The four read endpoints every kind of item has (SPEC.md "Endpoints"), registered once per
// kind from the kind's own list/get functions:
//
//   GET /<kind>/private            the token owner's private items    permission get_private_scope
//   GET /<kind>/public             the token owner's public items     a token, no permission
//   GET /<kind>/public/<username>  that user's public items           no token
//   GET /<kind>/id/<id>            one item                           API.md "Scopes and access"
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TObject } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Auth } from '../http/auth.ts';
import { badRequest } from '../http/errors.ts';
import { problems } from '../http/schemas.ts';
import { UsernameParams } from '../users/users.schemas.ts';
import { nextLink, ownerById, ownerByUsername, type CollectionParams, type Page, type Scope } from './items.logic.ts';
import type { ItemTable } from './items.repo.ts';
import { IdParams } from './items.schemas.ts';

export interface ListContext<Q> {
  owner: { id: string; username: string };
  scope: Scope;
  query: Q;
  /** Whether the owner is the caller (the token's collections) or anyone (`/public/<username>`). */
  byOwner: boolean;
}

/** Another representation of a page (GeoJSON, GPX, Atom, JSON Feed): a content type and its bytes. */
export interface Rendered {
  type: string;
  body: string;
}

export interface ItemKind<Q extends CollectionParams, T> {
  table: ItemTable;
  tag: string;
  /** `$id` of the object schema, added by the kind's plugin. */
  objectRef: string;
  /** The querystring schema: the collection parameters and the kind's own. */
  query: TObject;
  /** Other representations of a collection, for the OpenAPI document: content type -> description. */
  representations?: Record<string, string>;
  list(ctx: ListContext<Q>): Promise<Page<T>>;
  byId(id: string, auth: Auth | undefined): Promise<T>;
  /** A representation other than the JSON array, when the request asks for one. */
  render?(request: FastifyRequest, page: Page<T>, ctx: ListContext<Q>): Promise<Rendered | undefined>;
}

const NUMERIC_PARAMS = ['count', 'since_time', 'until_time'] as const;

/**
 * Ajv coerces an empty string to 0 (`?since_time=` would mean 1970); an empty value is not a
 * number, so it is a 400 like any other (API.md "Collections").
 */
async function emptyNumbersAre400(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>;
  const empty = NUMERIC_PARAMS.filter((name) => query[name] === '');
  if (empty.length > 0) {
    throw badRequest(
      `${empty.join(', ')} must be a number, not empty.`,
      empty.map((name) => ({ path: `querystring/${name}`, message: 'must be a number' })),
    );
  }
}

export function registerItemReads<Q extends CollectionParams, T>(
  app: FastifyInstance,
  { db, baseUrl }: { db: Db; baseUrl: string },
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

  async function sendPage(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>) {
    const page = await kind.list(ctx);
    if (page.next) void reply.header('link', nextLink(baseUrl, request.url, page.next));
    if (kind.render) {
      void reply.header('vary', 'Accept');
      const rendered = await kind.render(request, page, ctx);
      // Bytes, so fastify sends them as they are instead of serializing them again.
      if (rendered) return reply.type(rendered.type).send(Buffer.from(rendered.body));
    }
    return page.items;
  }

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
      const owner = await ownerById(db, request.auth!.userId);
      return sendPage(request, reply, { owner, scope: 'private', query: request.query as Q, byOwner: true });
    },
  );

  app.get(
    `${path}/public`,
    {
      config: { auth: 'required' },
      preValidation: emptyNumbersAre400,
      schema: {
        summary: `The token owner's public ${kind.table}`,
        description: 'Needs a valid token and no permission (SPEC.md).',
        tags: [kind.tag],
        querystring: kind.query,
        response: { 200: collection200, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const owner = await ownerById(db, request.auth!.userId);
      return sendPage(request, reply, { owner, scope: 'public', query: request.query as Q, byOwner: true });
    },
  );

  app.get(
    `${path}/public/:username`,
    {
      preValidation: emptyNumbersAre400,
      schema: {
        summary: `A user's public ${kind.table}`,
        description: 'No token needed. An unknown username is 404.',
        tags: [kind.tag],
        params: UsernameParams,
        querystring: kind.query,
        response: { 200: collection200, ...problems(400, 404) },
      },
    },
    async (request, reply) => {
      const { username } = request.params as { username: string };
      const owner = await ownerByUsername(db, username);
      return sendPage(request, reply, { owner, scope: 'public', query: request.query as Q, byOwner: false });
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
