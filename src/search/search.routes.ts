// GET /search and GET /search/public/<username> (docs/api.md "Search").
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { rejectEmptyNumbers } from '../http/empty-numbers.ts';
import { problems } from '../http/schemas.ts';
import { nextLink, ownerByUsername, type Page } from '../items/items.logic.ts';
import { MediumSchema } from '../media/media.schemas.ts';
import { PlaceSchema } from '../places/places.schemas.ts';
import { PostSchema } from '../posts/posts.schemas.ts';
import { UsernameParams } from '../users/users.schemas.ts';
import { ownSearcher, publicSearcher, search, toSearchResult, type Found } from './search.logic.ts';
import { PublicSearchQuery, SearchQuery, SearchResultSchema } from './search.schemas.ts';

const emptyNumbersAre400 = rejectEmptyNumbers(['count', 'since_time', 'until_time']);

const results200 = {
  description:
    'A bare JSON array of results, newest first. When there is a next page, the `Link` header (RFC 8288) names it with `rel="next"`.',
  content: { 'application/json': { schema: Type.Array(Type.Ref('SearchResult')) } },
};

export interface SearchRoutesOptions {
  db: Db;
  baseUrl: string;
  cursors: Cursors;
}

export async function searchRoutes(fastify: FastifyInstance, { db, baseUrl, cursors }: SearchRoutesOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The item schemas live in their kinds' own (encapsulated) plugins; results use them too.
  for (const schema of [PostSchema, MediumSchema, PlaceSchema, SearchResultSchema]) app.addSchema(schema);

  const send = (request: FastifyRequest, reply: FastifyReply, page: Page<Found>) => {
    if (page.next) void reply.header('link', nextLink(baseUrl, request.url, page.next));
    return page.items.map(toSearchResult);
  };

  app.get(
    '/search',
    {
      config: { auth: 'required' },
      preValidation: emptyNumbersAre400,
      schema: {
        summary: "Search the token owner's posts, media and places",
        description:
          'Public posts and media with any token; private ones and places (which are never public) with ' +
          '`get_private_scope`. `scope=private` or `kind=places` without it is 401 `insufficient_scope`. ' +
          'A query with no word, too many words or a prefix shorter than two letters is 400.',
        tags: ['search'],
        querystring: SearchQuery,
        response: { 200: results200, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const page = await search(db, baseUrl, cursors, ownSearcher(request.auth!, query), query);
      void reply.header('cache-control', 'private, no-store');
      return send(request, reply, page);
    },
  );

  app.get(
    '/search/public/:username',
    {
      preValidation: emptyNumbersAre400,
      schema: {
        summary: "Search a user's public posts and media",
        description:
          'No token needed. Only public items, shown as `GET /posts/public/<username>` and ' +
          '`GET /media/public/<username>` show them. An unknown username is 404.',
        tags: ['search'],
        params: UsernameParams,
        querystring: PublicSearchQuery,
        response: { 200: results200, ...problems(400, 404) },
      },
    },
    async (request, reply) => {
      const { username } = request.params;
      const query = request.query;
      const { version: _version, ...owner } = await ownerByUsername(db, username);
      const page = await search(db, baseUrl, cursors, publicSearcher(owner, query), query);
      void reply.header('cache-control', 'public, no-cache');
      return send(request, reply, page);
    },
  );
}
