import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { nextLink } from '../items/items.logic.ts';
import { IdParams } from '../items/items.schemas.ts';
import { LocationSchema } from '../locations/locations.schemas.ts';
import { MediumSchema } from '../media/media.schemas.ts';
import { PostSchema } from '../posts/posts.schemas.ts';
import { AppError } from '../core/errors.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { prefersHtml } from '../http/negotiation.ts';
import type { FastifyReply } from 'fastify';
import { createView, deleteView, listViews, readView, updateView, type ViewWithItems } from './views.logic.ts';
import { NewViewBody, ViewChangeBody, ViewItemsQuery, ViewSchema } from './views.schemas.ts';

// The access rule of every view route, as the OpenAPI document states it (docs/api-views.md).
const ACCESS =
  'A public view is readable by anyone, with or without a token, and shows only public items, to its owner too. ' +
  "A private view needs its owner's token with `get_views` and `get_private_scope` (`get_private_scope` " +
  'reads private views) and shows public and private items: no token is 401, a token lacking either permission ' +
  "is 401 `insufficient_scope` naming it, another person's token gets the same 404 as an id that does not exist.";

const WRITE_ACCESS =
  'Needs `manage_views`, and a view the token can see: only the owner changes or deletes a view (anyone else gets ' +
  'the same 404 as an id that does not exist, public view or private); a view that is or becomes private also ' +
  'needs `get_views` and `get_private_scope`, as reading it does (401 `insufficient_scope` naming the first missing).';

const ViewWithItems = Type.Object(
  {
    ...ViewSchema.properties,
    items: Type.Array(
      Type.Union([
        Type.Object({ kind: Type.Literal('posts'), item: Type.Ref('Post') }),
        Type.Object({ kind: Type.Literal('media'), item: Type.Ref('Medium') }),
        Type.Object({ kind: Type.Literal('locations'), item: Type.Ref('Location') }),
      ]),
      {
        description:
          'One page of the items, merged across `kinds`, ordered by `time` then `id` (as the collections). Each ' +
          'entry names its kind; `item` is the post, medium or location object exactly as its own endpoints show it.',
      },
    ),
  },
  { description: 'The view and the first page (or the page the cursor names) of its items.' },
);

/** How a view is shown to a browser (src/web/view-page.html.ts), given by src/app.ts. */
export interface ViewPages {
  /** The view's page, its times on the owner's clock (`timeZone`, their setting). */
  page: (view: ViewWithItems, nextHref: string | undefined, timeZone: string) => string;
  problem: (status: number, message: string) => string;
}

export async function viewsRoutes(
  fastify: FastifyInstance,
  { db, baseUrl, cursors, pages }: { db: Db; baseUrl: string; cursors: Cursors; pages?: ViewPages | undefined },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ViewSchema);
  // The item schemas live in their kinds' own (encapsulated) plugins; a view's items use them too.
  for (const schema of [PostSchema, MediumSchema, LocationSchema]) app.addSchema(schema);
  const location = (id: string) => `/views/${id}`;

  app.get(
    '/views',
    {
      config: { permission: 'get_views' },
      schema: {
        summary: "The token owner's views",
        description:
          'Every view of the token owner, oldest first, without items. Needs `get_views`; private views are listed ' +
          'only when the token also holds `get_private_scope`.',
        tags: ['views'],
        response: { 200: Type.Array(Type.Ref('View')), ...problems(401) },
      },
    },
    async (request) => listViews(db, request.auth!),
  );

  app.post(
    '/views',
    {
      config: { permission: 'manage_views' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Save a view',
        description:
          'Answers 201 with the view and its address in `Location`. Needs `manage_views`; a private view (the ' +
          'default) also needs `get_views` and `get_private_scope`, because the answer shows it. A public view ' +
          'cannot filter for private items.',
        tags: ['views'],
        body: NewViewBody,
        response: { 201: Type.Ref('View'), ...problems(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const view = await createView(db, request.auth!, request.body);
      return reply.code(201).header('location', location(view.id)).send(view);
    },
  );

  app.get(
    '/views/:id',
    {
      config: { auth: 'optional' },
      schema: {
        summary: 'A view with a page of its items',
        description:
          `${ACCESS} Takes the collection parameters; the items obey the same scope rules as the collections, ` +
          'and the `Link` header names the next page. A request that prefers `text/html` to JSON (a browser) ' +
          'gets the same page of items as an HTML page (`Vary: Accept`).',
        tags: ['views'],
        params: IdParams,
        querystring: ViewItemsQuery,
        response: { 200: ViewWithItems, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      // Content negotiation: a browser gets the view as a page, apps the JSON (src/web/view-page.html.ts).
      void reply.header('vary', 'Accept');
      if (!pages || !prefersHtml(request.headers.accept)) {
        const { view, next } = await readView(db, baseUrl, request.params.id, request.auth, request.query, cursors);
        if (next) void reply.header('link', nextLink(baseUrl, request.url, next));
        return view;
      }
      const page = (status: number, body: string) =>
        (reply as unknown as FastifyReply)
          .code(status)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(body);
      try {
        const { view, next, ownerId } = await readView(
          db,
          baseUrl,
          request.params.id,
          request.auth,
          request.query,
          cursors,
        );
        const link = next ? /^<([^>]+)>/.exec(nextLink(baseUrl, request.url, next))?.[1] : undefined;
        const { timezone } = await getSettings(db, ownerId);
        return await page(200, pages.page(view, link, timezone));
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return page(error.status, pages.problem(error.status, error.message));
      }
    },
  );

  app.post(
    '/views/:id',
    {
      config: { permission: 'manage_views' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Change a view',
        description:
          'Only the fields sent change; `filters`, when sent, replaces the whole filters object. Answers with the ' +
          `whole view, without items. ${WRITE_ACCESS}`,
        tags: ['views'],
        params: IdParams,
        body: ViewChangeBody,
        response: { 200: Type.Ref('View'), ...problems(400, 401, 404) },
      },
    },
    async (request) => updateView(db, request.auth!, request.params.id, request.body),
  );

  app.delete(
    '/views/:id',
    {
      config: { permission: 'manage_views' },
      schema: {
        summary: 'Delete a view',
        description: `The items stay; only the saved query goes. ${WRITE_ACCESS}`,
        tags: ['views'],
        params: IdParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteView(db, request.auth!, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
