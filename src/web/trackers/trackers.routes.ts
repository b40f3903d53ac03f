// The Trackers page of the signed-in web app (docs/trackers.md "The tracker page"):
//
//   GET  /app/trackers               the person's trackers and a form to add one (trackers.page.ts)
//   POST /app/trackers               adds one (type, name) and shows its token once, with the phone's set-up
//   POST /app/trackers/<id>/token    a new token for one, shown once the same way
//
// Forms with the session and its CSRF token; they call the same functions as POST /services and
// POST /services/<id>/ingest-token. The token is only in the answer to the POST (no-store),
// never in a URL.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { seeOther, sendHtml } from '../../account/replies.ts';
import { csrfToken } from '../../account/csrf.ts';
import { refuseForm } from '../../account/forms.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../core/errors.ts';
import { secretsKey } from '../../services/secrets.ts';
import { createService, getService, listServices, rotateIngestToken } from '../../services/services.logic.ts';
import { APP_PAGES } from '../registry.ts';
import type { Viewer } from '../page.ts';
import { appPage, viewerOf } from '../signed-in.ts';
import { isTracker, setupHtml, trackersBody, TRACKER_TYPES, type TrackersView } from './trackers.html.ts';

type Form = { csrf?: string; type?: string; name?: string };

export async function trackerPagesRoutes(app: FastifyInstance, { db, config }: { db: Db; config: Config }) {
  await app.register(formbody);
  const { baseUrl } = config;
  const key = secretsKey(config.secretKey);
  const hide = { schema: { hide: true } };

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    viewer: Viewer,
    status: number,
    extra: Partial<TrackersView> = {},
  ) {
    const trackers = (await listServices(db, baseUrl, viewer.id)).filter(isTracker);
    const csrf = csrfToken(request, reply, baseUrl, config.secretKey);
    const body = trackersBody({ trackers, csrf, ...extra });
    const pages = new Set(APP_PAGES.map((page) => page.path));
    return sendHtml(reply, status, appPage({ title: 'Trackers', body, viewer, csrf, current: '/app/trackers', pages }));
  }

  const refused = (request: FastifyRequest, reply: FastifyReply, token: unknown) =>
    refuseForm(request, reply, config, token, '/app/trackers');

  app.post<{ Body: Form | undefined }>('/app/trackers', hide, async (request, reply) => {
    const viewer = await viewerOf(db, baseUrl, request);
    if (!viewer) return seeOther(reply, '/account');
    const form = request.body ?? {};
    const refusal = refused(request, reply, form.csrf);
    if (refusal) return refusal;
    const type = (TRACKER_TYPES as readonly string[]).includes(form.type ?? '')
      ? (form.type as (typeof TRACKER_TYPES)[number])
      : undefined;
    const name = (form.name ?? '').trim();
    if (!type || name.length === 0 || name.length > 100) {
      const error = !type ? 'Choose one of the apps.' : 'Give the tracker a name of 1 to 100 characters.';
      return show(request, reply, viewer, 400, { error, form });
    }
    try {
      const tracker = await createService(db, key, baseUrl, viewer.id, { type, name, config: {} });
      const token = tracker.ingest?.token ?? '';
      const setup = await setupHtml({ ...tracker, type }, tracker.ingest?.url ?? '', token, viewer.username);
      return await show(request, reply, viewer, 201, { fresh: { tracker, token, setup } });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return show(request, reply, viewer, error.status, { error: error.message, form });
    }
  });

  app.post<{ Params: { id: string }; Body: Form | undefined }>(
    '/app/trackers/:id/token',
    hide,
    async (request, reply) => {
      const viewer = await viewerOf(db, baseUrl, request);
      if (!viewer) return seeOther(reply, '/account');
      const refusal = refused(request, reply, request.body?.csrf);
      if (refusal) return refusal;
      try {
        const tracker = await getService(db, baseUrl, viewer.id, request.params.id);
        if (!isTracker(tracker)) throw new AppError('not_found', 'No such tracker.');
        const { url, token } = await rotateIngestToken(db, baseUrl, viewer.id, tracker.id);
        const setup = await setupHtml(tracker, url, token, viewer.username);
        return await show(request, reply, viewer, 200, { fresh: { tracker, token, setup } });
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 404) throw error;
        return show(request, reply, viewer, 404, { error: 'There is no such tracker.' });
      }
    },
  );
}
