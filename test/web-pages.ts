// Every page of the web app, in one list: the screenshots (scripts/screenshots.ts) and the
// accessibility test (src/web/axe.test.ts) go through it. `{photo}`, `{video}` and `{post}`
// stand for the demo's ids (test/web.ts).
export interface WebPage {
  name: string;
  path: string;
  /** Seen signed out (default: signed in). */
  visitor?: boolean;
}

export const WEB_PAGES: readonly WebPage[] = [
  { name: 'home', path: '/', visitor: true },
  { name: 'sign-in', path: '/account', visitor: true },
  { name: 'timeline', path: '/' },
  { name: 'compose', path: '/app/compose' },
  { name: 'media', path: '/app/media' },
  { name: 'medium', path: '/app/media/{photo}' },
  { name: 'video', path: '/app/media/{video}' },
  { name: 'services', path: '/app/services' },
  { name: 'views', path: '/app/views' },
  { name: 'settings', path: '/app/settings' },
  { name: 'apps', path: '/account' },
];

export function pathOf(page: WebPage, demo: { photoId: string; videoId: string; postId: string }): string {
  return page.path.replace('{photo}', demo.photoId).replace('{video}', demo.videoId).replace('{post}', demo.postId);
}
