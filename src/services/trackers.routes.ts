// POST /ingest/<service id>: where tracker apps send their points (docs/trackers.md). The
// app's own protocol and its own way to authenticate; no OAuth token, since these apps cannot
// get one. Bodies are read as text here and parsed by the service type's connector.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { connectors } from './connectors/index.ts';
import { authenticateTracker, ingestPoints, type Tracker } from './trackers.logic.ts';

const IngestParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const IngestQuery = Type.Object(
  {
    token: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'The ingest token, for apps that can only be given a URL. Never written to a log.',
      }),
    ),
  },
  { additionalProperties: true },
);

/**
 * The token the app presented: the password of HTTP Basic (OwnTracks; any username),
 * `Authorization: Bearer` (Overland), or the `token` query parameter (apps given only a URL).
 */
function presentedToken(request: FastifyRequest<{ Querystring: { token?: string } }>): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const basic = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
    if (basic) {
      const decoded = Buffer.from(basic[1] ?? '', 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon < 0 ? undefined : decoded.slice(colon + 1);
    }
    return /^Bearer +(\S+) *$/i.exec(header)?.[1];
  }
  // Read before the query is validated: a repeated parameter is an array here.
  const token: unknown = request.query.token;
  return typeof token === 'string' ? token : undefined;
}

/** The query parameters a protocol may read: the first of each name, without the token. */
function plainQuery(query: Record<string, unknown>): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (name !== 'token' && typeof first === 'string') plain[name] = first;
  }
  return plain;
}

const replies = Object.values(connectors).flatMap((connector) => (connector.ingest ? [connector.ingest] : []));

export async function trackersRoutes(fastify: FastifyInstance, { db }: { db: Db }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Every app sends its own media type (or none); the protocol reads the text.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  const trackers = new WeakMap<FastifyRequest, Tracker>();

  app.post(
    '/ingest/:id',
    {
      schema: {
        summary: 'Points from a tracker app',
        description:
          "The URL a tracker service shows as `ingest.url`, spoken to in the app's own protocol " +
          '(docs/trackers.md). The token goes as the password of HTTP Basic (OwnTracks; any username), as ' +
          '`Authorization: Bearer <token>` (Overland), or as the query parameter `token` (GPSLogger or any app ' +
          'given only a URL; masked in logs). A wrong, rotated or missing token, or a deleted service, is 401; ' +
          'a disabled service is 403; either stores nothing.\n\n' +
          "Every point gets `source` = the service and the person's default scope for locations; a point " +
          'already stored (same time, lat, lon) is dropped silently. What a point that cannot be read does ' +
          'depends on the app: **owntracks** answers 200 `[]` and leaves it out (the app resends a refused message ' +
          'forever and holds back all later ones), other message types store nothing; **overland** answers ' +
          '`{"result":"ok"}` only once the batch is committed, skips features without a Point geometry, and ' +
          'leaves out unreadable Points with 200 for the same reason; **gpslogger** (form body, JSON body or ' +
          'query parameters) refuses an unreadable point with 400 naming the field, since the request is the ' +
          "person's own template. Points left out set the service's `status` to `error` with `last_error` " +
          'naming the first. A body that is not the protocol at all is 400.',
        tags: ['services'],
        params: IngestParams,
        querystring: IngestQuery,
        response: {
          200: Type.Union(
            replies.map((ingest) => ingest.replySchema),
            { description: "The answer the type's app expects." },
          ),
          ...problems(400, 401, 403, 413),
        },
      },
      onRequest: async (request) => {
        trackers.set(request, await authenticateTracker(db, request.params.id, presentedToken(request)));
      },
    },
    async (request) => {
      const tracker = trackers.get(request) as Tracker;
      const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const body = typeof request.body === 'string' ? request.body : '';
      return ingestPoints(db, tracker, { body, contentType, query: plainQuery(request.query) });
    },
  );
}
