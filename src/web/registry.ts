// Every page of the signed-in web app, in one list: add a page here and it is served in the
// layout (src/web/app.routes.ts), and its entry in the bar (src/web/nav.ts) appears.
import { appsPage } from './apps.page.ts';
import { composePage } from './compose.page.ts';
import { dayPage } from './days/day.page.ts';
import { thisYearPage, yearPage } from './days/year.page.ts';
import { placesPage } from './days/places.page.ts';
import { importsPage } from './imports.page.ts';
import { mediaPage, mediumPage } from './media.page.ts';
import type { AppPage } from './page.ts';
import { postPage } from './post.page.ts';
import { mapPage } from './map/map.page.ts';
import { trackersPage } from './trackers/trackers.page.ts';
import { searchPage } from './search.page.ts';
import { servicesConnectedPage } from './services-connected.page.ts';
import { servicesPage } from './services.page.ts';
import { settingsPage } from './settings.page.ts';
import { timelinePage } from './timeline.page.ts';
import { viewsPage } from './views.page.ts';

export const APP_PAGES: readonly AppPage[] = [
  timelinePage,
  postPage,
  searchPage,
  dayPage,
  composePage,
  mediaPage,
  mediumPage,
  mapPage,
  thisYearPage,
  yearPage,
  placesPage,
  servicesPage,
  servicesConnectedPage,
  viewsPage,
  importsPage,
  trackersPage,
  settingsPage,
  appsPage,
];
