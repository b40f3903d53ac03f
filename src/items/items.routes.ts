// The four read endpoints every kind of item has (docs/api.md), registered once per
// kind from the kind's own list/get functions:
//
//   GET /<kind>/private            the token owner's private items    permission get_private_scope
//   GET /<kind>/public             the token owner's public items     a token, no permission
//   GET /<kind>/public/<username>  that user's public items           no token
//   GET /<kind>/id/<id>            one item                           docs/api.md "Scopes and who sees what"
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TObject } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Auth } from '../http/auth.ts';
import { rejectEmptyNumbers } from '../http/empty-numbers.ts';
import { problems } from '../http/schemas.ts';
import { UsernameParams } from '../users/users.schemas.ts';
import { nextLink, ownerByUsername, type CollectionParams, type Page, type Scope } from './items.logic.ts';
import type { ItemTable } from './items.repo.ts';
import { IdParams } from './items.schemas.ts';
import { noneMatch, pageEtag, requestKey, type BuiltPage, type PageCache, type PageVersion } from './public-pages.ts';

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
  render?(
    request: FastifyRequest,
    page: Page<T>,
    ctx: ListContext<Q>,
  ): Promise<
    Rendered | undefined
  >; /** The whole collection as one streamed answer, when the request asks for it (`all=true`). */
  download?(request: FastifyRequest, ctx: ListContext<Q>): Promise<Streamed | undefined>;
}

/** A streamed answer: its type, a filename to save it under, and the bytes as they come. */
export interface Streamed {
  type: string;
  filename: string;
  body: NodeJS.ReadableStream;
}

const emptyNumbersAre400 = rejectEmptyNumbers(['count', 'since_time', 'until_time']);

export function registerItemReads<Q extends CollectionParams, T>(
  app: FastifyInstance,
  { db, baseUrl, pages }: { db: Db; baseUrl: string; pages?: PageCache | undefined },
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

  /** Other representations are chosen by Accept as well as `format` (docs/api.md); CORS may have said Origin. */
  function varyOnAccept(reply: FastifyReply) {
    if (!kind.render) return;
    const vary = reply.getHeader('vary');
    const names = typeof vary === 'string' ? vary.split(',').map((name) => name.trim()) : [];
    if (!names.some((name) => name.toLowerCase() === 'accept')) {
      void reply.header('vary', [...names.filter(Boolean), 'Accept'].join(', '));
    }
  }

  /** The page as bytes: the JSON array, or the representation the request asks for. */
  async function buildPage(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>): Promise<BuiltPage> {
    const page = await kind.list(ctx);
    const link = page.next ? nextLink(baseUrl, request.url, page.next) : undefined;
    const rendered = kind.render ? await kind.render(request, page, ctx) : undefined;
    if (rendered) return { type: rendered.type, body: Buffer.from(rendered.body), link };
    // The route's own serializer, as fastify would use for `return page.items` (its types
    // want an object, but the serializer is compiled for the array the schema describes).
    const json = reply.serializeInput(
      page.items as unknown as Record<string, unknown>,
      '200',
      'application/json',
    ) as string;
    return { type: 'application/json; charset=utf-8', body: Buffer.from(json), link };
  }

  /** The headers a built page goes out with: its type and its next page. */
  function describe(reply: FastifyReply, page: BuiltPage) {
    if (page.link) void reply.header('link', page.link);
    void reply.type(page.type);
  }

  /** A download, when the kind has one and the request asks for it; false otherwise. */
  async function sendDownload(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>) {
    const download = await kind.download?.(request, ctx);
    if (!download) return false;
    varyOnAccept(reply);
    void reply
      .type(download.type)
      .header('content-disposition', `attachment; filename="${download.filename}"`)
      .header('cache-control', 'no-store');
    return reply.send(download.body);
  }

  async function sendPage(request: FastifyRequest, reply: FastifyReply, ctx: ListContext<Q>) {
    const streamed = await sendDownload(request, reply, ctx);
    if (streamed) return streamed;
    const page = await buildPage(request, reply, ctx);
    varyOnAccept(reply);
    describe(reply, page);
    // Bytes, so fastify sends them as they are instead of serializing them again.
    return reply.send(page.body);
  }

  /**
   * A public page for anyone: 304 when the client has this version, else the copy in memory,
   * else built, and kept with the headers it goes out with (src/items/public-pages.ts).
   * `checked` is when, and at which write generation, the version was about to be read.
   */
  async function sendPublicPage(
    request: FastifyRequest,
    reply: FastifyReply,
    ctx: ListContext<Q>,
    { version, checked }: { version: PageVersion; checked: { at: number; generation: number } },
  ) {
    const key = requestKey(request.url, request.headers);
    const etag = pageEtag(baseUrl, key, version);
    void reply.header('etag', etag).header('cache-control', 'public, no-cache');
    varyOnAccept(reply);
    if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
    const kept = pages?.current(key, etag, checked);
    const page = kept?.page ?? (await buildPage(request, reply, ctx));
    describe(reply, page);
    if (pages && !kept) {
      const { 'x-request-id': _perRequest, ...headers } = reply.getHeaders();
      const route = request.routeOptions.url ?? request.url;
      pages.keep(key, { etag, page, headers, route, checkedAt: checked.at, generation: checked.generation });
    }
    return reply.send(page.body);
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
      const owner = { id: request.auth!.userId, username: request.auth!.username };
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
        description: 'Needs a valid token and no permission (the specification, docs/api.md).',
        tags: [kind.tag],
        querystring: kind.query,
        response: { 200: collection200, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const owner = { id: request.auth!.userId, username: request.auth!.username };
      return sendPage(request, reply, { owner, scope: 'public', query: request.query as Q, byOwner: true });
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
      // Taken before the version is read: a write answered after this outdates what is built now.
      const checked = { at: performance.now(), generation: pages?.generation ?? 0 };
      const { version, ...owner } = await ownerByUsername(db, username);
      const ctx = { owner, scope: 'public' as const, query: request.query as Q, byOwner: false };
      const streamed = await sendDownload(request, reply, ctx);
      if (streamed) return streamed;
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
