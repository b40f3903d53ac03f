import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../core/cursors.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { registerItemReads } from '../items/reads.routes.ts';
import { registerItemWrites } from '../items/writes.routes.ts';
import { rejectEmptyNumbers } from '../http/empty-numbers.ts';
import { Type } from 'typebox';
import type { PageCache } from '../items/public-pages.ts';
import { locationDownload, TYPES } from './locations.downloads.ts';
import { GEOJSON, GPX, renderLocations } from './locations.formats.ts';
import { addLocations, deleteLocation, deleteLocations, getLocation, listLocations } from './locations.logic.ts';
import {
  LOCATION_BATCH_MAX,
  LocationBatchBody,
  LocationBatchResult,
  LocationSchema,
  LocationsQuery,
  RangeQuery,
  type LocationsParams,
} from './locations.schemas.ts';

const emptyTimesAre400 = rejectEmptyNumbers(['since_time', 'until_time']);

export async function locationsRoutes(
  fastify: FastifyInstance,
  { db, baseUrl, pages, cursors }: { db: Db; baseUrl: string; pages?: PageCache | undefined; cursors: Cursors },
) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(LocationSchema);

  registerItemReads<LocationsParams, Awaited<ReturnType<typeof getLocation>>>(
    app,
    { db, baseUrl, pages, cursors },
    {
      table: 'locations',
      tag: 'locations',
      objectRef: 'Location',
      query: LocationsQuery,
      representations: {
        [GEOJSON]: 'RFC 7946 FeatureCollection of Point features (`format=geojson` or `Accept: application/geo+json`).',
        [GPX]: 'GPX 1.1 with one track segment, oldest point first (`format=gpx` or `Accept: application/gpx+xml`).',
        [TYPES.csv]: 'CSV (RFC 4180) with a header row (`format=csv`).',
        [TYPES.geojsonseq]: 'GeoJSON Text Sequence (RFC 8142), one Point Feature per record (`format=geojsonseq`).',
      },
      list: (ctx) => listLocations(db, ctx),
      download: (accept, ctx) => locationDownload(db, ctx, accept),
      byId: (id, auth) => getLocation(db, id, auth),
      render: (accept, page, ctx) =>
        renderLocations(accept, page.items, ctx.query, `${ctx.owner.username}: ${ctx.scope} locations`),
    },
  );

  app.post(
    '/locations',
    {
      config: { permission: 'write_locations' },
      validatorCompiler: strictBody,
      schema: {
        summary: 'Add a batch of locations',
        description:
          `A JSON array of points or a GeoJSON FeatureCollection, at most ${LOCATION_BATCH_MAX} points. Every point is ` +
          'checked; one bad point rejects the batch (400 naming its index) and nothing is stored. A point already ' +
          "stored (same time, lat, lon) is counted as a duplicate, not stored again. Points without `scope` get the owner's default (private unless changed in the settings).",
        tags: ['locations'],
        body: LocationBatchBody,
        response: { 200: LocationBatchResult, ...problems(400, 401, 413) },
      },
    },
    async (request) => addLocations(db, request.auth!.userId, request.body),
  );

  registerItemWrites(app, {
    table: 'locations',
    one: 'location',
    permission: 'write_locations',
    delete: (id, auth) => deleteLocation(db, id, auth),
  });

  app.delete(
    '/locations',
    {
      config: { permission: 'write_locations' },
      preValidation: emptyTimesAre400,
      schema: {
        summary: 'Delete your locations in a time range',
        description:
          'Deletes your points with `since_time <= time < until_time`; both are required (a client that means ' +
          'everything says so with -1e11 and 1e11). Without `scope` both scopes go, which also needs ' +
          '`get_private_scope` (401 `insufficient_scope` otherwise, nothing deleted); `scope=public` needs only ' +
          '`write_locations`. 200 with how many points were deleted (0 for an empty range).',
        tags: ['locations'],
        querystring: RangeQuery,
        response: {
          200: Type.Object({ deleted: Type.Integer({ minimum: 0 }) }, { description: 'Deleted.' }),
          ...problems(400, 401),
        },
      },
    },
    async (request) => deleteLocations(db, request.auth!, request.query),
  );
}
