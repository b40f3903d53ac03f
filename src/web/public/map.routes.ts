// GET /map: the signed-in Map page (src/web/public/map.page.ts). Its map reads the owner's tiles
// and day tracks from the JSON API with the session cookie.
import type { FastifyInstance } from 'fastify';
import { seeOther, sendHtml } from '../../account/replies.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { mapPolicy } from './assets.ts';
import { mapPage } from './map.page.ts';
import { appPage, viewerOf } from './signed-in.ts';

export async function mapRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  const policy = mapPolicy(config);
  app.get('/map', { schema: { hide: true } }, async (request, reply) => {
    const viewer = await viewerOf(db, request);
    if (!viewer) return seeOther(reply, '/account');
    const view = await mapPage(db, config, viewer, request.query as Record<string, unknown>);
    void reply.headers(policy);
    return sendHtml(reply, view.status, appPage('Map', view.body, view.head));
  });
}
