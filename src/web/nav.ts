// The pages in the bar, in order. An entry shows when a page with its path is registered
// (src/web/pages.ts), so the slots for pages still to come are ready.
export interface NavEntry {
  path: string;
  label: string;
  /** Shown whatever is registered (pages served by their own routes). */
  always?: boolean;
}

export const NAV: readonly NavEntry[] = [
  { path: '/', label: 'Timeline' },
  { path: '/compose', label: 'Compose' },
  { path: '/map', label: 'Map' },
  { path: '/media', label: 'Media' },
  { path: '/services', label: 'Services' },
  { path: '/views', label: 'Views' },
  { path: '/imports', label: 'Imports' },
  { path: '/trackers', label: 'Trackers' },
  { path: '/privacy-zones', label: 'Privacy zones' },
  { path: '/data', label: 'Export' },
  { path: '/settings', label: 'Settings' },
  { path: '/account', label: 'Apps', always: true },
];
