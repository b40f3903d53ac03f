// The location history at scale (docs/history.md): tiles for a map, day tracks, statistics.
// Whole-history downloads go through the collection routes (`all=true`, src/locations/locations.downloads.ts).
//
//   GET /locations/tiles/{z}/{x}/{y}.mvt                  the token owner's tile
//   GET /locations/public/<username>/tiles/{z}/{x}/{y}.mvt  a user's public tile, for anyone
//   GET /locations/tracks/<date>                          get_private_scope
//   GET /locations/stats                                  get_private_scope
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Db } from '../db/database.ts';
import { badRequest } from '../core/errors.ts';
import { problems } from '../http/schemas.ts';
import { ownerByUsername } from '../items/items.logic.ts';
import { noneMatch } from '../items/conditional.ts';
import { pageEtag, requestKey, type PageVersion } from '../items/public-pages.ts';
import { secondsToMs } from '../lib/time.ts';
import { publicPlacesOf } from '../privacy/places.ts';
import { findUserById } from '../users/users.repo.ts';
import { unauthorized } from '../core/caller.ts';
import {
  NotModified,
  PublicTileParams,
  StatsQuery,
  StatsSchema,
  Tile200,
  TileParams,
  TileQuery,
  Track200,
  TrackParams,
  TrackQuery,
} from './history.schemas.ts';
import { locationStats } from './stats.logic.ts';
import { ownerTile, parseTile, publicTile, type TileRange } from './tiles.logic.ts';
import { MVT } from './tiles.mvt.ts';
import { locationVersion } from './tiles.repo.ts';
import { dayTrack } from './tracks.logic.ts';
import { readsPrivate } from '../items/access.ts';

/** Ajv coerces an empty string to 0; an empty time is not a number (as on the collections). */
async function emptyTimesAre400(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>;
  const empty = ['since_time', 'until_time', 'zoom'].filter((name) => query[name] === '');
  if (empty.length > 0) {
    throw badRequest(
      `${empty.join(', ')} must be a number, not empty.`,
      empty.map((name) => ({ path: `querystring/${name}`, message: 'must be a number' })),
    );
  }
}

function rangeOf(query: { since_time?: number | undefined; until_time?: number | undefined }): TileRange {
  const ms = (value: number | undefined) => (value === undefined ? undefined : secondsToMs(value));
  return { sinceMs: ms(query.since_time), untilMs: ms(query.until_time) };
}

/** 304 when the client has this version, else the tile built now; an ETag either way. */
async function sendTile(
  request: FastifyRequest,
  reply: FastifyReply,
  { etag, cacheControl, build }: { etag: string; cacheControl: string; build: () => Promise<Buffer> },
) {
  void reply.header('etag', etag).header('cache-control', cacheControl);
  if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
  const body = await build();
  return reply.type(MVT).send(body);
}

export async function historyRoutes(fastify: FastifyInstance, { db, baseUrl }: { db: Db; baseUrl: string }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(StatsSchema);

  /** A public tile's name: what was asked and the public version (items_version moves with the precision). */
  const publicEtag = (request: FastifyRequest, version: PageVersion) =>
    pageEtag(baseUrl, `tile\n${requestKey(request.url, request.headers)}`, version);

  app.get(
    '/locations/tiles/:z/:x/:y.mvt',
    {
      config: { auth: 'required' },
      preValidation: emptyTimesAre400,
      schema: {
        summary: "A vector tile of the token owner's locations",
        description:
          'With `get_private_scope`: every point at its exact position. Without it: the public points as ' +
          '`/locations/public/<username>/tiles/...` shows them. An `ETag` follows every write of the locations; ' +
          '`If-None-Match` with it is 304.',
        tags: ['locations'],
        params: TileParams,
        querystring: TileQuery,
        response: { 200: Tile200, 304: NotModified, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const tile = parseTile(request.params);
      const range = rangeOf(request.query);
      const auth = request.auth!;
      if (readsPrivate(auth)) {
        const version = await locationVersion(db, auth.userId);
        const key = `owner tile\n${requestKey(request.url, request.headers)}`;
        return sendTile(request, reply, {
          etag: pageEtag(baseUrl, key, { userId: auth.userId, itemsVersion: version, updatedAt: 0 }),
          cacheControl: 'private, no-cache',
          build: () => ownerTile(db, auth.userId, tile, range),
        });
      }
      const owner = await findUserById(db, auth.userId);
      if (!owner) throw unauthorized();
      const version = { userId: owner.id, itemsVersion: owner.items_version, updatedAt: owner.updated_at };
      return sendTile(request, reply, {
        etag: publicEtag(request, version),
        cacheControl: 'private, no-cache',
        build: async () => publicTile(db, owner.id, (await publicPlacesOf(db, owner.id)).precisionM, tile, range),
      });
    },
  );

  app.get(
    '/locations/public/:username/tiles/:z/:x/:y.mvt',
    {
      preValidation: emptyTimesAre400,
      schema: {
        summary: "A vector tile of a user's public locations",
        description:
          "No token needed. Public points only, at the owner's `public_location_precision_m`; which tile and cell a " +
          'point is in is decided by its rounded position. An unknown username is 404. The `ETag` follows the ' +
          "user's public items and precision only.",
        tags: ['locations'],
        params: PublicTileParams,
        querystring: TileQuery,
        response: { 200: Tile200, 304: NotModified, ...problems(400, 404) },
      },
    },
    async (request, reply) => {
      const tile = parseTile(request.params);
      const range = rangeOf(request.query);
      const { version, ...owner } = await ownerByUsername(db, request.params.username);
      return sendTile(request, reply, {
        etag: publicEtag(request, version),
        cacheControl: 'public, no-cache',
        build: async () => publicTile(db, owner.id, (await publicPlacesOf(db, owner.id)).precisionM, tile, range),
      });
    },
  );

  app.get(
    '/locations/tracks/:date',
    {
      config: { permission: 'get_private_scope' },
      preValidation: emptyTimesAre400,
      schema: {
        summary: "One day of the owner's locations as a track",
        description:
          "The day is midnight to midnight in the owner's time zone (setting `timezone`); exact positions of every " +
          'point, public or private.',
        tags: ['locations'],
        params: TrackParams,
        querystring: TrackQuery,
        response: { 200: Track200, ...problems(400, 401) },
      },
    },
    async (request, reply) => {
      const track = await dayTrack(db, request.auth!.userId, request.params.date, request.query.zoom);
      return reply.type('application/geo+json').send(JSON.stringify(track));
    },
  );

  app.get(
    '/locations/stats',
    {
      config: { permission: 'get_private_scope' },
      preValidation: emptyTimesAre400,
      schema: {
        summary: "Statistics of the owner's location history",
        description:
          "Per day, month or year of the owner's time zone: points, distance, days with data and bounding box, " +
          'over every point, public or private, at its exact position. The range is taken at quarter-hour ' +
          'resolution (`since_time` down, `until_time` up).',
        tags: ['locations'],
        querystring: StatsQuery,
        response: { 200: { $ref: 'LocationStats' }, ...problems(400, 401) },
      },
    },
    async (request) => locationStats(db, request.auth!.userId, request.query),
  );
}
