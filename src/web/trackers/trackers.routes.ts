// The Trackers page of the signed-in web app (docs/trackers.md "The tracker page"):
//
//   GET  /app/trackers               the person's trackers and a form to add one (trackers.page.ts)
//   POST /app/trackers               adds one (type, name) and shows its token once, with the phone's set-up
//   GET  /app/trackers/<id>/token    asks first: a new token stops the old one at once
//   POST /app/trackers/<id>/token    a new token for one, shown once the same way
//   POST /app/trackers/<id>          renames it and switches it on or off (POST /services/<id>)
//   GET  /app/trackers/<id>/delete   asks first
//   POST /app/trackers/<id>/delete   deletes it (DELETE /services/<id>)
//
// Forms with the session and its CSRF token; they call the same functions as POST /services,
// POST /services/<id>/ingest-token, POST /services/<id> and DELETE /services/<id>, for the
// signed-in person's own trackers only (another person's is the same 404 as a missing one). The token is only in the answer to the POST (no-store),
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
import { changeService } from '../../services/change.logic.ts';
import { createService, deleteService, getService, rotateIngestToken } from '../../services/services.logic.ts';
import { APP_PAGES } from '../registry.ts';
import type { Viewer } from '../page.ts';
import { appPage, viewerOf } from '../signed-in.ts';
import { isTracker, setupHtml, trackersBody, TRACKER_TYPES, type TrackersView } from './trackers.html.ts';
import { trackersView } from './trackers.page.ts';

type Form = { csrf?: string; type?: string; name?: string; enabled?: string };
type TrackerRoute = { Params: { id: string }; Body: Form | undefined };

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
    const csrf = csrfToken(request, reply, baseUrl, config.secretKey);
    const body = trackersBody({ ...(await trackersView(db, config, viewer.id, csrf)), ...extra });
    const pages = new Set(APP_PAGES.map((page) => page.path));
    return sendHtml(reply, status, appPage({ title: 'Trackers', body, viewer, csrf, current: '/app/trackers', pages }));
  }

  /** The signed-in person's tracker by id; 404 for anyone else's or a missing one. */
  async function ownTracker(viewerId: string, id: string) {
    const tracker = await getService(db, baseUrl, viewerId, id);
    if (!isTracker(tracker)) throw new AppError('not_found', 'No such tracker.');
    return tracker;
  }

  /** Runs a form's action for a signed-in person: 404 for a tracker that is not theirs. */
  function trackerForm(
    action: (viewer: Viewer, request: FastifyRequest<TrackerRoute>, reply: FastifyReply) => Promise<unknown>,
    post: boolean,
  ) {
    return async (request: FastifyRequest<TrackerRoute>, reply: FastifyReply) => {
      const viewer = await viewerOf(db, baseUrl, request);
      if (!viewer) return seeOther(reply, '/account');
      if (post) {
        const refusal = refused(request, reply, request.body?.csrf);
        if (refusal) return refusal;
      }
      try {
        return await action(viewer, request, reply);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const message = error.status === 404 ? 'There is no such tracker.' : error.message;
        return show(request, reply, viewer, error.status, { error: message });
      }
    };
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

  app.get<TrackerRoute>(
    '/app/trackers/:id/token',
    hide,
    trackerForm(async (viewer, request, reply) => {
      const tracker = await ownTracker(viewer.id, request.params.id);
      return show(request, reply, viewer, 200, { confirm: { tracker, action: 'token' } });
    }, false),
  );

  app.post<TrackerRoute>(
    '/app/trackers/:id/token',
    hide,
    trackerForm(async (viewer, request, reply) => {
      const tracker = await ownTracker(viewer.id, request.params.id);
      const { url, token } = await rotateIngestToken(db, baseUrl, viewer.id, tracker.id);
      const setup = await setupHtml(tracker, url, token, viewer.username);
      return show(request, reply, viewer, 200, { fresh: { tracker, token, setup } });
    }, true),
  );

  app.post<TrackerRoute>(
    '/app/trackers/:id',
    hide,
    trackerForm(async (viewer, request, reply) => {
      const tracker = await ownTracker(viewer.id, request.params.id);
      const form = request.body ?? {};
      const name = (typeof form.name === 'string' ? form.name : '').trim();
      if (name.length === 0 || name.length > 100) {
        return show(request, reply, viewer, 400, { error: `Give ${tracker.name} a name of 1 to 100 characters.` });
      }
      const enabled = form.enabled === 'on';
      await changeService(db, key, baseUrl, viewer.id, tracker.id, { name, enabled });
      const notice = enabled
        ? `Saved ${name}: switched on.`
        : `Saved ${name}: switched off. Its phone’s points are refused until you switch it on again.`;
      return show(request, reply, viewer, 200, { notice });
    }, true),
  );

  app.get<TrackerRoute>(
    '/app/trackers/:id/delete',
    hide,
    trackerForm(async (viewer, request, reply) => {
      const tracker = await ownTracker(viewer.id, request.params.id);
      return show(request, reply, viewer, 200, { confirm: { tracker, action: 'delete' } });
    }, false),
  );

  app.post<TrackerRoute>(
    '/app/trackers/:id/delete',
    hide,
    trackerForm(async (viewer, request, reply) => {
      const tracker = await ownTracker(viewer.id, request.params.id);
      await deleteService(db, viewer.id, tracker.id);
      const notice = `Deleted ${tracker.name}. The points it sent stay in your history.`;
      return show(request, reply, viewer, 200, { notice });
    }, true),
  );
}
