// GET /app/trackers in the web app (src/web/registry.ts): the person's trackers and the form to add
// one. The forms' answers, which show a token once, are src/web/trackers/trackers.routes.ts.
import { listServices } from '../../services/services.logic.ts';
import type { AppPage } from '../page.ts';
import { isTracker, trackersBody } from './trackers.html.ts';

export const trackersPage: AppPage = {
  path: '/app/trackers',
  title: 'Trackers',
  styles: ['public.css'],
  render: async ({ db, config, viewer, csrf }) => {
    const trackers = (await listServices(db, config.baseUrl, viewer.id)).filter(isTracker);
    return { body: trackersBody({ trackers, csrf }) };
  },
};
