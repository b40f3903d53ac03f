// GET /locations/visits, GET /locations/trips, POST /locations/visits/<id>, GET
// /locations/summary (docs/api.md "Visits and trips"). Each first brings the detection up to
// date with the points (`refresh`, src/history/refresh.ts, passed in by src/app.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { nextLink } from '../items/items.logic.ts';
import { IdParams } from '../items/items.schemas.ts';
import { nowMs } from '../lib/time.ts';
import { locationSummary } from './summary.logic.ts';
import { correctVisit, listTrips, listVisits } from './visits.logic.ts';
import {
  SummaryQuery,
  SummarySchema,
  TripSchema,
  VisitCorrectionBody,
  VisitSchema,
  VisitsQuery,
} from './visits.schemas.ts';

export type RefreshHistory = (db: Db, userId: string, now: number) => Promise<void>;

const ACCESS = 'Needs `get_private_scope`: visits and trips are never public.';

export async function visitsRoutes(
  fastify: FastifyInstance,
  { db, baseUrl, cursors, refresh }: { db: Db; baseUrl: string; cursors: Cursors; refresh: RefreshHistory },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(VisitSchema);
  app.addSchema(TripSchema);

  app.get(
    '/locations/visits',
    {
      config: { permission: 'get_private_scope' },
      schema: {
        summary: 'Visits: where the person stayed',
        description:
          'Stays detected from the location history (docs/history.md "Visits and trips"), with the person’s ' +
          'corrections applied, overlapping the range; oldest first unless `order=desc`; the `Link` header names ' +
          `the next page. ${ACCESS}`,
        tags: ['locations'],
        querystring: VisitsQuery,
        response: { 200: Type.Array(Type.Ref('Visit')), ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      await refresh(db, request.auth!.userId, nowMs());
      const page = await listVisits(db, request.auth!, request.query, cursors);
      if (page.next) void reply.header('link', nextLink(baseUrl, request.url, page.next));
      return page.items;
    },
  );

  app.get(
    '/locations/trips',
    {
      config: { permission: 'get_private_scope' },
      schema: {
        summary: 'Trips: the movement between visits',
        description: `Overlapping the range, oldest first unless \`order=desc\`, paged as visits are. ${ACCESS}`,
        tags: ['locations'],
        querystring: VisitsQuery,
        response: { 200: Type.Array(Type.Ref('Trip')), ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      await refresh(db, request.auth!.userId, nowMs());
      const page = await listTrips(db, request.auth!, request.query, cursors);
      if (page.next) void reply.header('link', nextLink(baseUrl, request.url, page.next));
      return page.items;
    },
  );

  app.post(
    '/locations/visits/:id',
    {
      config: { permission: 'write_locations' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Correct a visit',
        description:
          'One correction: the stay was at another place (`place_id`), was two stays (`split_at`), was one stay ' +
          'with another visit (`merge_with`), or was no stay (`not_a_stay`). The correction is kept and applied ' +
          'whenever the day is detected again. Answers with the visits of the corrected stretch as they are now. ' +
          "Needs `write_locations` and `get_private_scope`; another person's visit is the same 404 as a missing id.",
        tags: ['locations'],
        params: IdParams,
        body: VisitCorrectionBody,
        response: { 200: Type.Array(Type.Ref('Visit')), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const auth = request.auth!;
      const stretch = await correctVisit(db, auth, request.params.id, request.body, nowMs());
      await refresh(db, auth.userId, nowMs());
      const query = {
        count: 1000,
        order: 'asc' as const,
        since_time: stretch.sinceMs / 1000,
        until_time: stretch.untilMs / 1000,
      };
      return (await listVisits(db, auth, query, cursors)).items;
    },
  );

  app.get(
    '/locations/summary',
    {
      config: { permission: 'get_private_scope' },
      schema: {
        summary: 'A year or a month in review',
        description:
          'Distance by mode, days per country, towns and cities, the places where the most time was spent, the ' +
          `longest trip and the places first visited, in the owner’s time zone. ${ACCESS}`,
        tags: ['locations'],
        querystring: SummaryQuery,
        response: { 200: SummarySchema, ...problems(400, 401) },
      },
    },
    async (request) => {
      await refresh(db, request.auth!.userId, nowMs());
      return locationSummary(db, request.auth!, request.query);
    },
  );
}
