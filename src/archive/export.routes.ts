// GET /export: the person's whole account as one ZIP, streamed (src/archive/export.logic.ts).
// Two ways in, both through the one auth hook (src/http/auth.ts): an app's token with the
// `export` permission, or the person's own browser signed in (a link on their pages). A request
// that sends a token is judged by the token alone.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { problems } from '../http/schemas.ts';
import { ownerById } from '../items/items.logic.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { exportArchive } from './export.logic.ts';
import { EXPORT_FORMAT, EXPORT_VERSION } from './format.ts';

export async function exportRoutes(
  fastify: FastifyInstance,
  { database, config }: { database: Database; config: Config },
) {
  const storage = mediaStorage(config);
  const { db } = database;
  fastify.get(
    '/export',
    {
      config: { permission: 'export' },
      schema: {
        summary: 'Download everything in your account as one ZIP',
        description:
          'Needs a token with `export` (401 `insufficient_scope` without it), or the signed-in browser session of ' +
          '/account. Streams a ZIP (`Content-Disposition: attachment`) holding README.txt (format ' +
          `\`${EXPORT_FORMAT}\`, version ${EXPORT_VERSION}, and what each file is), ` +
          'posts.jsonl, media.jsonl, every original under ' +
          'media/<sha256>.<ext>, locations.geojsonseq (RFC 8142), views.json, settings.json, services.json (every ' +
          'secret left out) and groups.json; private items included, coordinates exact. The archive is written ' +
          'as it is read, with no length known in advance: a download that breaks off is started again (no ' +
          'ranges). docs/data-ownership.md describes the format.',
        tags: ['export'],
        response: {
          200: {
            description: 'The archive.',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problems(401),
        },
      },
    },
    async (request, reply) => {
      const owner = await ownerById(db, request.auth!.userId);
      const now = new Date();
      const archive = await exportArchive(db, storage, owner, { baseUrl: config.baseUrl, now });
      const day = now.toISOString().slice(0, 10);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="waypost-${owner.username}-${day}.zip"`)
        .header('cache-control', 'no-store')
        .send(archive);
    },
  );
}
