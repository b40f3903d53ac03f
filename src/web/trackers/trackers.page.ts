// GET /app/trackers in the web app (src/web/registry.ts): the person's trackers, what each is
// doing, and the form to add one. The forms' answers, which show a token once or ask first, are
// src/web/trackers/trackers.routes.ts.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { listServices } from '../../services/services.logic.ts';
import { trackerActivities } from '../../services/trackers.logic.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import { nowMs } from '../../lib/time.ts';
import type { AppPage } from '../page.ts';
import { isTracker, trackersBody, type TrackersView } from './trackers.html.ts';

/**
 * The base URL when it is one no phone can reach (this computer itself): `WAYPOST_BASE_URL`
 * unset, so `http://localhost:<port>`, or set to a loopback address.
 */
export function loopbackBaseUrl(baseUrl: string): string | undefined {
  const host = new URL(baseUrl).hostname;
  const loopback = host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\./.test(host);
  return loopback ? baseUrl : undefined;
}

/** Everything the Trackers page shows of the person's trackers, read as the API reads them. */
export async function trackersView(db: Db, config: Config, userId: string, csrf: string): Promise<TrackersView> {
  const [services, activity, settings] = await Promise.all([
    listServices(db, config.baseUrl, userId),
    trackerActivities(db, userId),
    getSettings(db, userId),
  ]);
  return {
    trackers: services.filter(isTracker),
    csrf,
    activity,
    timeZone: settings.timezone,
    now: nowMs(),
    unreachable: loopbackBaseUrl(config.baseUrl),
  };
}

export const trackersPage: AppPage = {
  path: '/app/trackers',
  title: 'Trackers',
  styles: ['public.css'],
  render: async ({ db, config, viewer, csrf }) => ({
    body: trackersBody(await trackersView(db, config, viewer.id, csrf)),
  }),
};
