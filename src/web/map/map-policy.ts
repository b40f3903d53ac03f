// The policy of every page with a map, and of MapLibre's worker (docs/maps.md).
import type { Config } from '../../config.ts';
import { SECURITY_HEADERS } from '../../http/plumbing.ts';

/**
 * The Content-Security-Policy of pages with a map, and of MapLibre's worker (a worker runs under
 * the policy its own script came with): the site's policy, plus the basemap's origins for fetches
 * and images. Scripts stay `'self'` only: MapLibre 6 starts its worker as a module from its own
 * URL, so neither `blob:` nor `'unsafe-eval'` is needed (docs/maps.md).
 */
export function mapPolicy(config: Config): Record<string, string> {
  const origins = config.mapOrigins.join(' ');
  const directives = (SECURITY_HEADERS['content-security-policy'] ?? '')
    .split(';')
    .filter((directive) => !/^(img-src|connect-src|worker-src)\b/.test(directive.trim()));
  directives.push(
    `img-src 'self' data: ${origins}`.trim(),
    `connect-src 'self' ${origins}`.trim(),
    "worker-src 'self'",
  );
  return {
    'content-security-policy': directives.join(';'),
    // Tile servers (OpenStreetMap's among them) ask for a Referer; the origin is enough, and a
    // page's path (whose profile is open) never leaves.
    'referrer-policy': 'strict-origin',
  };
}
