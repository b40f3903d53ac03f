// Every page of the signed-in web app, in one list: add a page here and it is served in the
// layout (src/web/app.routes.ts), and its entry in the bar (src/web/nav.ts) appears.
import { appsPage } from './apps.page.ts';
import type { AppPage } from './page.ts';
import { mapAppPage } from './public/map.page.ts';
import { trackersAppPage } from './public/trackers.page.ts';
import { timelinePage } from './timeline.page.ts';

export const APP_PAGES: readonly AppPage[] = [timelinePage, mapAppPage, trackersAppPage, appsPage];
