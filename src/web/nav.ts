// The pages in the bar, in order. Signed-in pages live under /app/ (the timeline at /), so they
// never share a path with the JSON API (`GET /settings` is the API's). An entry shows when a page with its path is registered
// (src/web/registry.ts), so the slots for pages still to come are ready.
export interface NavEntry {
  path: string;
  label: string;
  /** Shown whatever is registered (pages served by their own routes). */
  always?: boolean;
}

export const NAV: readonly NavEntry[] = [
  { path: '/', label: 'Timeline' },
  { path: '/app/compose', label: 'Compose' },
  { path: '/app/map', label: 'Map' },
  { path: '/app/years', label: 'Year' },
  { path: '/app/media', label: 'Media' },
  { path: '/app/services', label: 'Services' },
  { path: '/app/views', label: 'Views' },
  { path: '/app/imports', label: 'Imports' },
  { path: '/app/trackers', label: 'Trackers' },
  { path: '/app/data', label: 'Export' },
  { path: '/app/settings', label: 'Settings' },
  { path: '/account', label: 'Apps', always: true },
];
