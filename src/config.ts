import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { DatabaseOptions } from './db/database.ts';
import { boolean, ConfigError, httpUrl, integer, oneOf, read, type Env } from './config.env.ts';
import { mapOrigins, mapStyle, type MapStyle } from './config.map.ts';
import { storage, type StorageConfig } from './config.storage.ts';

// The one module callers import: the settings are read in config.env.ts, config.map.ts and
// config.storage.ts, and what callers use of them is exported from here.
export { ConfigError } from './config.env.ts';
export type { MapStyle } from './config.map.ts';
export type { StorageConfig } from './config.storage.ts';

/** Log levels pino knows, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Kinds of non-public address an operator may let outbound requests reach (src/lib/ssrf.ts). */
export const ADDRESS_CATEGORIES = [
  'loopback',
  'private',
  'link-local',
  'cgnat',
  'unique-local',
  'metadata',
  'reserved',
] as const;
export type AddressCategory = (typeof ADDRESS_CATEGORIES)[number];

export interface Config {
  /** Address to listen on. `WAYPOST_HOST`, default `127.0.0.1` (put a reverse proxy in front). */
  host: string;
  /** TCP port. `WAYPOST_PORT`, default `8080`. */
  port: number;
  /** The origin people and apps reach the server at, used in links and as the OAuth issuer.
   * `WAYPOST_BASE_URL`, default `http://localhost:<port>`. */
  baseUrl: string;
  /** Where the SQLite database, the secret key and media files live. `WAYPOST_DATA_DIR`, default `./data`. */
  dataDir: string;
  /** PostgreSQL connection string. `DATABASE_URL` (or `WAYPOST_DATABASE_URL`); absent: SQLite in the data folder. */
  databaseUrl: string | undefined;
  /** `WAYPOST_LOG_LEVEL`, default `info`. */
  logLevel: LogLevel;
  /** `WAYPOST_LOG_FORMAT` = `json`, `pretty` or `auto` (default): JSON lines, readable lines, or
   * readable when standard output is a terminal and JSON otherwise. */
  logFormat: 'json' | 'pretty' | 'auto';
  /** 32 bytes of key material every other key is derived from. `WAYPOST_SECRET_KEY` (64 hex
   * characters or base64 of 32 bytes); absent: read from, or generated once into, `<data>/secret.key`. */
  secretKey: Buffer;
  /** Whether anyone may create an account at `/register`. `WAYPOST_REGISTRATION` = `open` or
   * `closed`, default `closed`: accounts come from the operator (setup link, `waypost user add`). */
  registrationOpen: boolean;
  /** Largest request body in bytes (uploads have their own limit). `WAYPOST_BODY_LIMIT`, default 1 MiB. */
  bodyLimit: number;
  /** Largest media file in bytes for `POST /media`. `WAYPOST_UPLOAD_LIMIT`, default 100 MiB. */
  uploadLimit: number;
  /** Largest file in bytes for `POST /imports` (location history, docs/imports.md). `WAYPOST_IMPORT_LIMIT`,
   * default 4 GiB: a Google Takeout of years runs to gigabytes, and imports are streamed, never held in memory. */
  importLimit: number;
  /** Heap of the child process an import runs in, in MiB (docs/imports.md "How an import runs").
   * `WAYPOST_IMPORT_MEMORY_MB`, default 512: a reader holds one record of at most 16 MiB, and a file
   * that needs more than this kills only its child, never the server. */
  importMemoryMb: number;
  /** Memory for copies of public collection pages read without a token, in bytes
   * (src/items/public-pages.ts). `WAYPOST_PUBLIC_CACHE_MB`, default 64; 0 keeps no copies
   * (ETags and 304 still work). Per process. */
  publicCacheBytes: number;
  /** How long a copy of a public page, once confirmed current by the database, is served
   * without asking again, in milliseconds. Writes through this process show at once; writes
   * by another process sharing the database (a second server) show within
   * this time. `WAYPOST_PUBLIC_CACHE_REVALIDATE_MS`, default 1000; 0 asks on every request. */
  publicCacheRevalidateMs: number;
  /** Trust `X-Forwarded-*` from a reverse proxy. `WAYPOST_TRUST_PROXY` = `true`/`false`, default `false`. */
  trustProxy: boolean;
  /** Sign-in limits (docs/sign-in-limits.md), the same for /account and the OAuth sign-in page.
   * Failed attempts per account and client address (an IPv6 client is its /64) in 15 minutes
   * before that address is refused for that account. `WAYPOST_SIGN_IN_ACCOUNT_ADDRESS_LIMIT`,
   * default 5. Behind a reverse proxy, set `WAYPOST_TRUST_PROXY`, or every visitor is one address. */
  signInAccountAddressLimit: number;
  /** Failed attempts per client address across accounts in 15 minutes.
   * `WAYPOST_SIGN_IN_ADDRESS_LIMIT`, default 100. */
  signInAddressLimit: number;
  /** Failed attempts on one account, from any address, before each further attempt on it waits
   * (1 s, then twice as long each time). `WAYPOST_SIGN_IN_ACCOUNT_FREE`, default 10. An account
   * is never locked: it is throttled, and the count ends after 15 minutes without attempts. */
  signInAccountFree: number;
  /** The longest wait between attempts on an account, in seconds.
   * `WAYPOST_SIGN_IN_MAX_DELAY_SECONDS`, default 300; from 1 to 900. */
  signInMaxDelaySeconds: number;
  /** `GET /metrics` answers a request carrying `Authorization: Bearer <this>`, from anywhere.
   * `WAYPOST_METRICS_TOKEN`, default unset. With neither this nor `metricsLoopback`, `/metrics`
   * does not exist (404, like any unknown path): request counts per route tell a stranger when
   * a person is active. */
  metricsToken: string | undefined;
  /** `GET /metrics` answers, without a token, a request whose connection comes from the machine
   * itself (127.0.0.0/8, ::1) and that carries no `Forwarded`/`X-Forwarded-For` header (so a
   * reverse proxy on the same machine does not make every visitor local); others get 404, or 401
   * when a metrics token is set too. `WAYPOST_METRICS_LOOPBACK` = `true`/`false`, default `false`. */
  metricsLoopback: boolean;
  /** Lifetime of OAuth access tokens in seconds. `WAYPOST_ACCESS_TOKEN_TTL`, default 3600 (one hour,
   * docs/api.md "OAuth2"); from 60 to 86400. Refresh tokens renew them. */
  accessTokenTtl: number;
  /** Whether apps may register themselves at `/oauth/register` (RFC 7591, public clients only).
   * `WAYPOST_CLIENT_REGISTRATION` = `open` or `closed`, default `open`; closed: only
   * `waypost client add` creates clients. */
  clientRegistrationOpen: boolean;
  /** Apps one client address (an IPv6 client is its /64) may register at `/oauth/register` in an
   * hour; more are refused (429 with `Retry-After`). Counted in the database, so several servers
   * share the count. `WAYPOST_CLIENT_REGISTRATION_LIMIT`, default 10; from 1 to 10000. Behind a
   * reverse proxy, set `WAYPOST_TRUST_PROXY`, or every visitor is one address. */
  clientRegistrationLimit: number;
  /** Requests one assistant's grant may make to `/mcp` per minute (docs/mcp.md "Limits"); more are
   * refused (429 with `Retry-After`). Counted in the database, so several servers share the count.
   * `WAYPOST_MCP_REQUESTS_PER_MINUTE`, default 120; from 1 to 100000. */
  mcpRequestsPerMinute: number;
  /** Non-public address kinds outbound requests (webhooks, Mastodon, Micropub) may reach.
   * `WAYPOST_OUTBOUND_ALLOW`, a comma-separated list of loopback, private, link-local, cgnat,
   * unique-local, metadata, reserved; default none: only public addresses (no SSRF). */
  outboundAllow: ReadonlySet<AddressCategory>;
  /** Run the delivery worker inside the server process. `WAYPOST_INLINE_WORKER`, default `true`;
   * set `false` when separate `waypost worker` processes do the work. */
  inlineWorker: boolean;
  /** Jobs one worker runs at once. `WAYPOST_WORKER_CONCURRENCY`, default 4. */
  workerConcurrency: number;
  /** How long a claimed job stays a worker's before another may take it up (a crashed worker's
   * jobs come back after this). `WAYPOST_JOB_LEASE_SECONDS`, default 60; outbound requests time
   * out well before it. */
  jobLeaseSeconds: number;
  /** How long a job that ended (done, failed, cancelled) is kept before housekeeping deletes it,
   * in days. `WAYPOST_JOB_RETENTION_DAYS`, default 7; from 1 to 3650. A delivery's own status
   * stays on the post; the job row only records how it was run. */
  jobRetentionDays: number;
  /** How long a delivery record that ended without delivering (failed, cancelled) is kept, in
   * days. `WAYPOST_DELIVERY_RETENTION_DAYS`, default 90; from 1 to 3650. Delivered ones stay
   * with their post (docs/housekeeping.md). */
  deliveryRetentionDays: number;
  /** How long a temporary file nothing refers to (an upload cut off, a crashed import's copy), or
   * a stored media file no medium has (a node killed mid-upload), is kept after it was last written, in hours. `WAYPOST_TEMP_FILE_RETENTION_HOURS`, default 24;
   * from 1 to 8760. The upload of an import that ended goes at the next run, whatever its age. */
  tempFileRetentionHours: number;
  /** How often housekeeping runs, in minutes. `WAYPOST_HOUSEKEEPING_INTERVAL_MINUTES`, default
   * 60; from 1 to 10080 (docs/housekeeping.md). */
  housekeepingIntervalMinutes: number;
  /** Attempts per delivery, the first included, before it is marked failed.
   * `WAYPOST_DELIVERY_MAX_ATTEMPTS`, default 8. */
  deliveryMaxAttempts: number;
  /** The first retry waits about this long, each later one twice as long (with jitter).
   * `WAYPOST_RETRY_BASE_SECONDS`, default 15. */
  retryBaseSeconds: number;
  /** No retry waits longer than this. `WAYPOST_RETRY_MAX_SECONDS`, default 3600. */
  retryMaxSeconds: number;
  /** The ffmpeg command: video thumbnails, and public video and audio without metadata.
   * `WAYPOST_FFMPEG_PATH`, default `ffmpeg` (found on PATH). Missing: no video thumbnails, and
   * public video and audio reach only their owner (503 for everyone else). */
  ffmpegPath: string;
  /** The ffprobe command: duration, size, time and place of video and audio.
   * `WAYPOST_FFPROBE_PATH`, default `ffprobe` (found on PATH). Missing: those stay null. */
  ffprobePath: string;
  /** Largest image accepted, in pixels, every frame of an animation counted; larger uploads are
   * refused (422 `media_too_many_pixels`). `WAYPOST_MEDIA_MAX_PIXELS`, default 100000000
   * (100 megapixels: every phone camera but the 200-megapixel modes). */
  mediaMaxPixels: number;
  /** Most bytes of metadata (EXIF, XMP, ICC, comments, text chunks) one JPEG, PNG or WebP may
   * carry; more is refused (422 `media_metadata_too_large`). `WAYPOST_MEDIA_MAX_METADATA_BYTES`,
   * default 8388608 (8 MiB: room for a phone's depth map in extended XMP). */
  mediaMaxMetadataBytes: number;
  /** Time one image job (facts and thumbnail of an upload, or a public copy) may take in its
   * worker before the worker is killed; an upload is then refused (422
   * `media_processing_timeout`). `WAYPOST_MEDIA_TIMEOUT_MS`, default 30000. */
  mediaTimeoutMs: number;
  /** Image worker processes at once, each doing one job on one thread at a lower CPU priority.
   * `WAYPOST_MEDIA_CONCURRENCY`, default half the CPUs (at least 1), so the rest of the server
   * keeps the others. */
  mediaConcurrency: number;
  /**
   * Where files live (docs/design.md "Storage"): `WAYPOST_STORAGE` = `local` (default, the
   * data folder) or `s3` (an S3-compatible bucket, with the `WAYPOST_S3_*` settings).
   */
  storage: StorageConfig;
  /** The basemap under every map (docs/maps.md). `WAYPOST_MAP_STYLE`: a raster tile URL with
   * `{z}`, `{x}` and `{y}`, the URL of a MapLibre style document, or `none` (the person's points
   * on a plain background). Default: OpenStreetMap's public raster tiles,
   * `https://tile.openstreetmap.org/{z}/{x}/{y}.png`. The person's own points are drawn whether or
   * not a basemap tile loads. */
  mapStyle: MapStyle;
  /** Origins the map pages may reach besides Waypost itself (their Content-Security-Policy): the
   * origin of `WAYPOST_MAP_STYLE`, and those in `WAYPOST_MAP_ORIGINS` (comma-separated, for the
   * tiles, sprites and fonts a style document names on other hosts). */
  mapOrigins: readonly string[];
}

function baseUrl(env: Env, port: number): string {
  const name = 'WAYPOST_BASE_URL';
  const url = httpUrl(name, read(env, name) ?? `http://localhost:${port}`);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(name, `expected an origin without path, query or credentials, like https://example.org`);
  }
  return url.origin;
}

function databaseUrl(env: Env): string | undefined {
  const name = read(env, 'DATABASE_URL') !== undefined ? 'DATABASE_URL' : 'WAYPOST_DATABASE_URL';
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(name, 'expected a postgres:// URL (leave it unset for SQLite in the data folder)');
  }
  return raw;
}

function parseSecretKey(name: string, raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(name, 'expected 32 bytes, as 64 hex characters or base64');
  return key;
}

/** The secret key: from the environment, else from `<data>/secret.key`, written there (0600) on first start. */
function secretKey(env: Env, dataDir: string): Buffer {
  const raw = read(env, 'WAYPOST_SECRET_KEY');
  if (raw !== undefined) return parseSecretKey('WAYPOST_SECRET_KEY', raw);
  const file = join(dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // 'wx': if another process wrote it first, keep theirs.
    try {
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return parseSecretKey(file, readFileSync(file, 'utf8').trim());
}

function addressCategories(env: Env): ReadonlySet<AddressCategory> {
  const name = 'WAYPOST_OUTBOUND_ALLOW';
  const raw = read(env, name);
  if (raw === undefined) return new Set();
  const names = raw
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);
  for (const category of names) {
    if (!(ADDRESS_CATEGORIES as readonly string[]).includes(category)) {
      throw new ConfigError(
        name,
        `expected a comma-separated list of ${ADDRESS_CATEGORIES.join(', ')}, got "${category}"`,
      );
    }
  }
  return new Set(names as AddressCategory[]);
}

/** Where the configured database is: PostgreSQL at its URL, or SQLite in the data folder. */
export function databaseOptions(config: Pick<Config, 'databaseUrl' | 'dataDir'>): DatabaseOptions {
  return { url: config.databaseUrl, sqlitePath: join(config.dataDir, 'waypost.db') };
}

/** Reads and validates the configuration; throws a ConfigError naming the variable at fault. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'WAYPOST_PORT', 8080, 0, 65535);
  const dataDir = resolve(read(env, 'WAYPOST_DATA_DIR') ?? 'data');
  const style = mapStyle(env);
  return {
    host: read(env, 'WAYPOST_HOST') ?? '127.0.0.1',
    port,
    baseUrl: baseUrl(env, port),
    dataDir,
    databaseUrl: databaseUrl(env),
    logLevel: oneOf(env, 'WAYPOST_LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf(env, 'WAYPOST_LOG_FORMAT', ['json', 'pretty', 'auto'], 'auto'),
    registrationOpen: oneOf(env, 'WAYPOST_REGISTRATION', ['open', 'closed'], 'closed') === 'open',
    bodyLimit: integer(env, 'WAYPOST_BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    uploadLimit: integer(env, 'WAYPOST_UPLOAD_LIMIT', 100 * 1024 * 1024, 1, 64 * 1024 * 1024 * 1024),
    importLimit: integer(env, 'WAYPOST_IMPORT_LIMIT', 4 * 1024 * 1024 * 1024, 1, 1024 * 1024 * 1024 * 1024),
    importMemoryMb: integer(env, 'WAYPOST_IMPORT_MEMORY_MB', 512, 32, 65_536),
    publicCacheBytes: integer(env, 'WAYPOST_PUBLIC_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
    publicCacheRevalidateMs: integer(env, 'WAYPOST_PUBLIC_CACHE_REVALIDATE_MS', 1000, 0, 60_000),
    trustProxy: boolean(env, 'WAYPOST_TRUST_PROXY', false),
    signInAccountAddressLimit: integer(env, 'WAYPOST_SIGN_IN_ACCOUNT_ADDRESS_LIMIT', 5, 1, 1000),
    signInAddressLimit: integer(env, 'WAYPOST_SIGN_IN_ADDRESS_LIMIT', 100, 1, 100_000),
    signInAccountFree: integer(env, 'WAYPOST_SIGN_IN_ACCOUNT_FREE', 10, 1, 1000),
    signInMaxDelaySeconds: integer(env, 'WAYPOST_SIGN_IN_MAX_DELAY_SECONDS', 300, 1, 900),
    metricsToken: read(env, 'WAYPOST_METRICS_TOKEN'),
    metricsLoopback: boolean(env, 'WAYPOST_METRICS_LOOPBACK', false),
    accessTokenTtl: integer(env, 'WAYPOST_ACCESS_TOKEN_TTL', 3600, 60, 86400),
    clientRegistrationOpen: oneOf(env, 'WAYPOST_CLIENT_REGISTRATION', ['open', 'closed'], 'open') === 'open',
    clientRegistrationLimit: integer(env, 'WAYPOST_CLIENT_REGISTRATION_LIMIT', 10, 1, 10_000),
    mcpRequestsPerMinute: integer(env, 'WAYPOST_MCP_REQUESTS_PER_MINUTE', 120, 1, 100_000),
    secretKey: secretKey(env, dataDir),
    outboundAllow: addressCategories(env),
    storage: storage(env),
    inlineWorker: boolean(env, 'WAYPOST_INLINE_WORKER', true),
    workerConcurrency: integer(env, 'WAYPOST_WORKER_CONCURRENCY', 4, 1, 256),
    jobLeaseSeconds: integer(env, 'WAYPOST_JOB_LEASE_SECONDS', 60, 5, 86_400),
    jobRetentionDays: integer(env, 'WAYPOST_JOB_RETENTION_DAYS', 7, 1, 3650),
    deliveryRetentionDays: integer(env, 'WAYPOST_DELIVERY_RETENTION_DAYS', 90, 1, 3650),
    tempFileRetentionHours: integer(env, 'WAYPOST_TEMP_FILE_RETENTION_HOURS', 24, 1, 8760),
    housekeepingIntervalMinutes: integer(env, 'WAYPOST_HOUSEKEEPING_INTERVAL_MINUTES', 60, 1, 10_080),
    deliveryMaxAttempts: integer(env, 'WAYPOST_DELIVERY_MAX_ATTEMPTS', 8, 1, 100),
    retryBaseSeconds: integer(env, 'WAYPOST_RETRY_BASE_SECONDS', 15, 1, 86_400),
    retryMaxSeconds: integer(env, 'WAYPOST_RETRY_MAX_SECONDS', 3600, 1, 7 * 86_400),
    ffmpegPath: read(env, 'WAYPOST_FFMPEG_PATH') ?? 'ffmpeg',
    ffprobePath: read(env, 'WAYPOST_FFPROBE_PATH') ?? 'ffprobe',
    mediaMaxPixels: integer(env, 'WAYPOST_MEDIA_MAX_PIXELS', 100_000_000, 1, 10_000_000_000),
    mediaMaxMetadataBytes: integer(env, 'WAYPOST_MEDIA_MAX_METADATA_BYTES', 8 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    mediaTimeoutMs: integer(env, 'WAYPOST_MEDIA_TIMEOUT_MS', 30_000, 100, 3_600_000),
    mediaConcurrency: integer(
      env,
      'WAYPOST_MEDIA_CONCURRENCY',
      Math.max(1, Math.floor(availableParallelism() / 2)),
      1,
      64,
    ),
    mapStyle: style,
    mapOrigins: mapOrigins(env, style),
  };
}
