// Waypost's own static files for the pages (CSS, ES modules) and the vendor files the pages use,
// read once at start. A page links each as `/assets/<name>?v=<hash>` (assetUrl): with the hash
// of the current bytes the answer is cached for a year (`immutable`); without it, or with an old
// one, it is `no-cache` with a strong ETag. No build step: the files are served as written
// (docs/design.md "The web app").
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.ts';

const OWN_DIR = join(import.meta.dirname, 'assets');
const require = createRequire(import.meta.url);

/**
 * Files from npm packages served under /assets, by the name pages link them with. A page that
 * needs a library adds it here (e.g. `'maplibre-gl.js': 'maplibre-gl/dist/maplibre-gl.js'`).
 */
export const VENDOR_FILES: Record<string, string> = {};

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

function load(): Map<string, Asset> {
  const files = new Map<string, string>();
  for (const name of readdirSync(OWN_DIR)) files.set(name, join(OWN_DIR, name));
  for (const [name, module] of Object.entries(VENDOR_FILES)) files.set(name, require.resolve(module));
  const assets = new Map<string, Asset>();
  for (const [name, path] of files) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(path);
    assets.set(name, { body, type, hash: createHash('sha256').update(body).digest('base64url').slice(0, 12) });
  }
  return assets;
}

let loaded: Map<string, Asset> | undefined;
const assets = () => (loaded ??= load());

/** The URL of an asset, naming its current version (so it can be cached for good). */
export function assetUrl(name: string): string {
  const asset = assets().get(name);
  if (!asset) throw new Error(`No asset named ${name}`);
  return `/assets/${name}?v=${asset.hash}`;
}

export async function assetRoutes(app: FastifyInstance) {
  app.get<{ Params: { name: string }; Querystring: { v?: string } }>(
    '/assets/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = assets().get(request.params.name);
      if (!asset) throw new AppError('not_found', `Nothing lives at GET /assets/${request.params.name}.`);
      const etag = `"${asset.hash}"`;
      void reply
        .type(asset.type)
        .header('etag', etag)
        .header(
          'cache-control',
          request.query.v === asset.hash ? 'public, max-age=31536000, immutable' : 'public, no-cache',
        );
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(asset.body);
    },
  );
}
