// The files the maps load: MapLibre GL JS from its npm package and the map modules. Served by
// Waypost itself (no CDN, docs/maps.md), read once at start,
// under a path named by their content so a browser may keep them for a year; a gzip copy is
// made once for clients that take it. They are not among the web app's /assets (src/web/assets.ts):
// MapLibre loads its worker from beside its own URL, the map module imports MapLibre by a relative
// path, and the worker needs the map pages' policy (a worker runs under the policy its script
// came with), so the three live in one versioned folder of their own.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { sendProblem } from '../../http/errors.ts';
import { nothingHere, SECURITY_HEADERS } from '../../http/plumbing.ts';

const here = dirname(fileURLToPath(import.meta.url));
const maplibre = join(dirname(createRequire(import.meta.url).resolve('maplibre-gl/package.json')), 'dist');

/** File name -> where it is read from. MapLibre loads its worker from beside its own module. */
const SOURCES: Record<string, string> = {
  'maplibre-gl.mjs': join(maplibre, 'maplibre-gl.mjs'),
  'maplibre-gl-worker.mjs': join(maplibre, 'maplibre-gl-worker.mjs'),
  'maplibre-gl.css': join(maplibre, 'maplibre-gl.css'),
  'waypost-map.js': join(here, 'waypost-map.js'),
  'map-page.js': join(here, 'map-page.js'),
  'settings-map.js': join(here, 'settings-map.js'),
  // The grid the server snaps public places to, for the Settings page's preview (docs/privacy.md).
  'precision.js': join(here, '..', '..', 'privacy', 'grid.js'),
};

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

function loadAssets(): { version: string; files: Map<string, Asset> } {
  const files = new Map<string, Asset>();
  const digest = createHash('sha256');
  for (const [name, path] of Object.entries(SOURCES)) {
    const body = readFileSync(path);
    digest.update(name).update(body);
    files.set(name, {
      type: TYPES[name.split('.').at(-1) ?? ''] ?? 'application/octet-stream',
      body,
      gzip: gzipSync(body),
    });
  }
  return { version: digest.digest('base64url').slice(0, 12), files };
}

/** Read when first asked for, so commands that never serve a page (the CLI) skip the work. */
let loaded: ReturnType<typeof loadAssets> | undefined;
const assets = () => (loaded ??= loadAssets());

/** Where an asset is served: under the version of all of them, so a new release is a new URL. */
export function assetUrl(name: string): string {
  return `/assets/public/${assets().version}/${name}`;
}

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

export async function publicAssetsRoutes(app: FastifyInstance, { config }: { config: Config }) {
  const policy = mapPolicy(config);
  app.get<{ Params: { version: string; name: string } }>(
    '/assets/public/:version/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = assets().files.get(request.params.name);
      if (!asset || request.params.version !== assets().version) {
        return sendProblem(reply, nothingHere(request));
      }
      const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
      void reply
        .headers(policy)
        .type(asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('vary', 'Accept-Encoding');
      if (gzip) void reply.header('content-encoding', 'gzip');
      return reply.send(gzip ? asset.gzip : asset.body);
    },
  );
}
