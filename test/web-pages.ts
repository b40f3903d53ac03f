// Every page of the web app, in one list: the screenshots (scripts/screenshots.ts) and the
// accessibility test (src/web/web.browser.test.ts) go through it. `{photo}`, `{video}` and `{post}`
// stand for the demo's ids, `{user}` for its username, `{day}` and `{year}` for its day of stays
// and trips and that day's year (test/web.ts).
export interface WebPage {
  name: string;
  path: string;
  /** Seen signed out (default: signed in). */
  visitor?: boolean;
}

export const WEB_PAGES: readonly WebPage[] = [
  { name: 'home', path: '/', visitor: true },
  { name: 'sign-in', path: '/account', visitor: true },
  { name: 'profile', path: '/@{user}', visitor: true },
  { name: 'post', path: '/@{user}/{post}', visitor: true },
  { name: 'profile-search', path: '/@{user}/search?q=ridge', visitor: true },
  { name: 'tagged', path: '/@{user}/tagged/ridge', visitor: true },
  { name: 'public-medium', path: '/@{user}/media/{photo}', visitor: true },
  { name: 'timeline', path: '/' },
  { name: 'own-post', path: '/app/posts/{post}' },
  { name: 'search', path: '/app/search?q=ridg*' },
  { name: 'compose', path: '/app/compose' },
  { name: 'media', path: '/app/media' },
  { name: 'medium', path: '/app/media/{photo}' },
  { name: 'video', path: '/app/media/{video}' },
  { name: 'day', path: '/app/days/{day}' },
  { name: 'map', path: '/app/map' },
  { name: 'map-range', path: '/app/map?from={day}&until={day}&draw=lines' },
  { name: 'year', path: '/app/years/{year}' },
  { name: 'services', path: '/app/services' },
  { name: 'views', path: '/app/views' },
  { name: 'imports', path: '/app/imports' },
  { name: 'trackers', path: '/app/trackers' },
  { name: 'settings', path: '/app/settings' },
  { name: 'apps', path: '/account' },
];

export function pathOf(
  page: WebPage,
  demo: { username: string; photoId: string; videoId: string; postId: string; day: string },
): string {
  return page.path
    .replace('{user}', demo.username)
    .replace('{photo}', demo.photoId)
    .replace('{video}', demo.videoId)
    .replace('{post}', demo.postId)
    .replaceAll('{day}', demo.day)
    .replace('{year}', demo.day.slice(0, 4));
}
