// Timeline (`/` signed in): the person's posts, media and locations, newest first.
import { html } from '../account/html.ts';
import type { AppPage } from './page.ts';
import { homeForVisitor } from './pages.routes.ts';

export const timelinePage: AppPage = {
  path: '/',
  title: 'Timeline',
  visitor: homeForVisitor,
  render: async ({ viewer }) => ({ body: html`<h1>Timeline of ${viewer.displayName}</h1>` }),
};
