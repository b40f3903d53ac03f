import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Db } from '../db/database.ts';
import type { Cursors } from '../http/cursors.ts';
import { problems } from '../http/schemas.ts';
import { strictBody } from '../http/strict-body.ts';
import { registerItemReads } from '../items/reads.routes.ts';
import type { PageCache } from '../items/public-pages.ts';
import { locationDownload, TYPES } from './locations.downloads.ts';
import { GEOJSON, GPX, renderLocations } from './locations.formats.ts';
import { addLocations, getLocation, listLocations } from './locations.logic.ts';
import {
  LOCATION_BATCH_MAX,
  LocationBatchBody,
  LocationBatchResult,
  LocationSchema,
  LocationsQuery,
  type LocationsParams,
} from './locations.schemas.ts';

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
}
