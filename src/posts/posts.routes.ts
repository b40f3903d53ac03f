import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { registerItemReads } from '../items/items.routes.ts';
import { ATOM, JSON_FEED, renderPosts } from './posts.feeds.ts';
import { createPost, getPost, listPosts, type Post, type PostsParams } from './posts.logic.ts';
import { NewPostBody, PostSchema, PostsQuery } from './posts.schemas.ts';

export async function postsRoutes(fastify: FastifyInstance, { db, baseUrl }: { db: Db; baseUrl: string }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(PostSchema);

  registerItemReads<PostsParams, Post>(
    app,
    { db, baseUrl },
    {
      table: 'posts',
      tag: 'posts',
      objectRef: 'Post',
      query: PostsQuery,
      representations: {
        [ATOM]: 'An Atom feed of the page (`format=atom` or `Accept: application/atom+xml`).',
        [JSON_FEED]: 'A JSON Feed of the page (`format=jsonfeed` or `Accept: application/feed+json`).',
      },
      list: (ctx) => listPosts(db, ctx),
      byId: (id, auth) => getPost(db, id, auth),
      render: (request, page, ctx) => renderPosts(request, page.items, ctx.query, baseUrl, ctx.owner.username),
    },
  );

  app.post(
    '/posts',
    {
      config: { permission: 'create_post' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Write a post',
        description:
          "Stores the post in the caller's collection and delivers it to every service of the given groups. " +
          '`groups: []` delivers it nowhere. 202 with `Location` and the post object. Anything invalid (text empty ' +
          'or over 5000 characters after trimming, an unknown group or medium, an extra field, a body that is not ' +
          'JSON) is 400 with the reason; a token without `create_post` is 401 (SPEC.md).',
        tags: ['posts'],
        body: NewPostBody,
        response: {
          202: { ...Type.Ref('Post'), description: 'Accepted: stored, deliveries queued.' },
          ...problems(400, 401, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const post = await createPost(db, request.auth!.userId, request.body);
      return reply.code(202).header('location', `/posts/id/${post.id}`).send(post);
    },
  );
}
