// The static files the pages load, read once when first asked for (so commands that never serve a
// page, the CLI, skip the work) and served as written: no build step (docs/design.md "The web
// app"). Two URL schemes, one for each kind of file:
//
// - Waypost's own CSS and ES modules (src/web/assets/) and the vendor files of `VENDOR_FILES`:
//   `/assets/<name>?v=<hash>` (`assetUrl`). With the hash of the current bytes the answer is
//   cached for a year (`immutable`); without it, or with an old one, it is `no-cache` with a
//   strong ETag.
// - The map folder (`mapFolderUrl`): MapLibre GL JS from its npm package and the map modules
//   (src/web/map/), served by Waypost itself (no CDN, docs/maps.md) under
//   `/assets/public/<version>/<name>`, the version naming the content of them all, so each is
//   cached for a year; a gzip copy is made once for clients that take it. They are not among the
//   files above: MapLibre loads its worker from beside its own URL, the map module imports
//   MapLibre by a relative path, and the worker needs the map pages' policy (a worker runs under
//   the policy its script came with), so they live in one versioned folder of their own.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../http/errors.ts';
import { nothingHere } from '../http/plumbing.ts';
import { mapPolicy } from './map/map-policy.ts';

const require = createRequire(import.meta.url);
const OWN_DIR = join(import.meta.dirname, 'assets');
const MAP_DIR = join(import.meta.dirname, 'map');
const maplibre = join(dirname(require.resolve('maplibre-gl/package.json')), 'dist');

/**
 * Files from npm packages served under /assets, by the name pages link them with. A page that
 * needs a library adds it here (e.g. `'maplibre-gl.js': 'maplibre-gl/dist/maplibre-gl.js'`).
 */
export const VENDOR_FILES: Record<string, string> = {};

/** The map folder: file name -> where it is read from. MapLibre loads its worker from beside its own module. */
const MAP_FILES: Record<string, string> = {
  'maplibre-gl.mjs': join(maplibre, 'maplibre-gl.mjs'),
  'maplibre-gl-worker.mjs': join(maplibre, 'maplibre-gl-worker.mjs'),
  'maplibre-gl.css': join(maplibre, 'maplibre-gl.css'),
  'waypost-map.js': join(MAP_DIR, 'waypost-map.js'),
  'map-page.js': join(MAP_DIR, 'map-page.js'),
  'settings-map.js': join(MAP_DIR, 'settings-map.js'),
  // The grid the server snaps public places to, for the Settings page's preview (docs/privacy.md).
  'precision.js': join(import.meta.dirname, '..', 'privacy', 'grid.js'),
};

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

function loadOwn(): Map<string, Asset> {
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

function loadMapFolder(): { version: string; files: Map<string, { type: string; body: Buffer; gzip: Buffer }> } {
  const files = new Map<string, { type: string; body: Buffer; gzip: Buffer }>();
  const digest = createHash('sha256');
  for (const [name, path] of Object.entries(MAP_FILES)) {
    const body = readFileSync(path);
    digest.update(name).update(body);
    files.set(name, { type: TYPES[extname(name)] ?? 'application/octet-stream', body, gzip: gzipSync(body) });
  }
  return { version: digest.digest('base64url').slice(0, 12), files };
}

let own: Map<string, Asset> | undefined;
let mapFolder: ReturnType<typeof loadMapFolder> | undefined;
const ownAssets = () => (own ??= loadOwn());
const mapAssets = () => (mapFolder ??= loadMapFolder());

let favicon: { body: Buffer; hash: string } | undefined;

/** An ICO file (ICONDIR, one ICONDIRENTRY, the image) holding a 32 × 32 PNG drawn from an SVG. */
async function icoOf(svg: Buffer): Promise<{ body: Buffer; hash: string }> {
  const { default: sharp } = await import('sharp');
  const png = await sharp(svg, { density: 300 }).resize(32, 32).png().toBuffer();
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(32, 6); // width
  header.writeUInt8(32, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9); // reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14); // the image's size
  header.writeUInt32LE(header.length, 18); // where it starts
  const body = Buffer.concat([header, png]);
  return { body, hash: createHash('sha256').update(body).digest('base64url').slice(0, 12) };
}

/** The URL of one of Waypost's own assets, naming its current version (so it can be cached for good). */
export function assetUrl(name: string): string {
  const asset = ownAssets().get(name);
  if (!asset) throw new Error(`No asset named ${name}`);
  return `/assets/${name}?v=${asset.hash}`;
}

/** The URL of a file of the map folder: under the version of all of them, so a new release is a new URL. */
export function mapFolderUrl(name: string): string {
  return `/assets/public/${mapAssets().version}/${name}`;
}

export async function assetRoutes(app: FastifyInstance, { config }: { config: Config }) {
  app.get<{ Params: { name: string }; Querystring: { v?: string } }>(
    '/assets/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = ownAssets().get(request.params.name);
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

  // Browsers ask every site for /favicon.ico, whatever a page links: the same icon as the pages'
  // favicon.svg, as an ICO holding one 32 px PNG (an ICO may hold PNGs since Windows Vista, and
  // every browser reads them), drawn once from the SVG by sharp.
  app.get('/favicon.ico', { schema: { hide: true } }, async (request, reply) => {
    favicon ??= await icoOf(ownAssets().get('favicon.svg')!.body);
    const etag = `"${favicon.hash}"`;
    void reply.type('image/x-icon').header('etag', etag).header('cache-control', 'public, max-age=86400');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(favicon.body);
  });

  const policy = mapPolicy(config);
  app.get<{ Params: { version: string; name: string } }>(
    '/assets/public/:version/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = mapAssets().files.get(request.params.name);
      if (!asset || request.params.version !== mapAssets().version) {
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
