// POST /posts/id/<id> and POST /media/id/<id>: change a post's scope, a medium's scope and caption
// (src/account-data/change.logic.ts). Partial bodies, like POST /settings and POST /views/<id>.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { IdParams, ScopeSchema } from '../items/items.schemas.ts';
import { getMedium } from '../media/media.logic.ts';
import { CAPTION_MAX, MediumSchema } from '../media/media.schemas.ts';
import { getPost } from '../posts/posts.logic.ts';
import { deliveriesForPosts } from '../services/deliveries.logic.ts';
import { PostSchema } from '../posts/posts.schemas.ts';
import { changeItem } from './change.logic.ts';

const PostChange = Type.Object({ scope: Type.Optional(ScopeSchema) }, { additionalProperties: false });
const MediumChange = Type.Object(
  { scope: Type.Optional(ScopeSchema), caption: Type.Optional(Type.String({ maxLength: CAPTION_MAX })) },
  { additionalProperties: false },
);

const RULES =
  "Another person's item and an id that does not exist get the same 404. A private one also needs " +
  '`get_private_scope`, as reading it does. Public pages, counts and ETags change at once.';

export async function changeRoutes(fastify: FastifyInstance, { db, baseUrl }: { db: Db; baseUrl: string }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The item schemas live in their kinds' own (encapsulated) plugins.
  for (const schema of [PostSchema, MediumSchema]) app.addSchema(schema);
  app.post(
    '/posts/id/:id',
    {
      config: { permission: 'create_post' },
      schema: {
        summary: 'Change one of your posts',
        description: `Takes \`{scope}\` (partial: what is left out stays). Needs \`create_post\`. ${RULES} Answers the post.`,
        tags: ['posts'],
        params: IdParams,
        body: PostChange,
        response: { 200: Type.Ref('Post'), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      await changeItem(db, 'posts', request.params.id, request.body, request.auth!);
      return getPost(db, request.params.id, request.auth, deliveriesForPosts);
    },
  );
  app.post(
    '/media/id/:id',
    {
      config: { permission: 'upload_media' },
      schema: {
        summary: 'Change one of your media',
        description: `Takes \`{scope, caption}\` (partial). Needs \`upload_media\`. ${RULES} Answers the medium.`,
        tags: ['media'],
        params: IdParams,
        body: MediumChange,
        response: { 200: Type.Ref('Medium'), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      await changeItem(db, 'media', request.params.id, request.body, request.auth!);
      return getMedium(db, baseUrl, request.params.id, request.auth);
    },
  );
}
