import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { registerItemReads } from '../items/reads.routes.ts';
import { registerItemWrites } from '../items/writes.routes.ts';
import type { PageCache } from '../items/public-pages.ts';
import { ATOM, JSON_FEED, renderPosts } from './posts.feeds.ts';
import { changePost, createPost, deletePost, getPost, listPosts, type PostDeliveries } from './posts.logic.ts';
import { idempotent } from '../core/idempotency.ts';
import {
  NewPostBody,
  PostChange,
  PostHeaders,
  PostSchema,
  PostsQuery,
  type Post,
  type PostChangeBody,
  type PostsParams,
} from './posts.schemas.ts';

export interface PostsRoutesOptions {
  db: Db;
  baseUrl: string;
  /** Copies of public pages (src/items/public-pages.ts); none when the operator turned it off. */
  pages?: PageCache | undefined;
  /** The server's collection cursors (src/core/cursors.ts). */
  cursors: Cursors;
  /** Deliveries of new posts and the owner's view of them (src/services/deliveries.logic.ts). */
  deliveries: PostDeliveries;
  /** Called after a post with deliveries is committed (wakes an in-process worker). */
  onJobsQueued?: (() => void) | undefined;
}

export async function postsRoutes(fastify: FastifyInstance, options: PostsRoutesOptions) {
  const { db, baseUrl } = options;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(PostSchema);

  registerItemReads<PostsParams, Post>(
    app,
    { db, baseUrl, pages: options.pages, cursors: options.cursors },
    {
      table: 'posts',
      tag: 'posts',
      objectRef: 'Post',
      query: PostsQuery,
      representations: {
        [ATOM]: 'An Atom feed of the page (`format=atom` or `Accept: application/atom+xml`).',
        [JSON_FEED]: 'A JSON Feed of the page (`format=jsonfeed` or `Accept: application/feed+json`).',
      },
      list: (ctx) => listPosts(db, ctx, options.deliveries.of),
      byId: (id, auth) => getPost(db, id, auth, options.deliveries.of),
      render: (accept, page, ctx) => renderPosts(accept, page.items, ctx.query, baseUrl, ctx.owner.username),
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
          'JSON) is 400 with the reason; a token without `create_post` is 401 (the specification, docs/api.md). With an ' +
          '`Idempotency-Key` header, a retry with the same key and body gets the first response again ' +
          '(`Idempotent-Replayed: true`) and no second post; the same key with another body is 422; a retry ' +
          'while the first is still running is 409. Keys are remembered for 24 hours.',
        tags: ['posts'],
        headers: PostHeaders,
        body: NewPostBody,
        response: {
          202: { ...Type.Ref('Post'), description: 'Accepted: stored, deliveries queued.' },
          ...problems(400, 401, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { userId, username } = request.auth!;
      const key = { userId, scope: 'POST /posts', key: request.headers['idempotency-key'], body: request.body };
      const response = await idempotent(db, key, async (remember) => {
        const accepted = (post: Post) => ({ status: 202, headers: { location: `/posts/id/${post.id}` }, body: post });
        const post = await createPost(db, { id: userId, username }, request.body, {
          deliveries: options.deliveries,
          beforeCommit: (trx, created) => remember(trx, accepted(created)),
        });
        if (post.deliveries?.length) options.onJobsQueued?.();
        return accepted(post);
      });
      return reply
        .code(response.status as 202)
        .headers(response.headers)
        .send(response.body);
    },
  );

  registerItemWrites<PostChangeBody>(app, {
    table: 'posts',
    one: 'post',
    permission: 'create_post',
    alsoDeleted:
      ' Its delivery records and queued deliveries go with it; copies already delivered to other services stay there.',
    delete: (id, auth) => deletePost(db, id, auth, options.deliveries),
    change: {
      summary: 'Change one of your posts',
      takes:
        '`{scope, text}` (partial: what is left out stays). A new text goes to the deliveries not yet made, and ' +
        'as an edit to the services that take edits (Mastodon, Micropub); the others (Bluesky, webhooks) keep ' +
        "the first text, and each delivery's `edit_status` says which",
      body: PostChange,
      objectRef: 'Post',
      apply: async (id, change, auth) => {
        const post = await changePost(db, id, change, auth, options.deliveries);
        if (post.deliveries?.some((d) => d.edit_status === 'pending')) options.onJobsQueued?.();
        return post;
      },
    },
  });
}
