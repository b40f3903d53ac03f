import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'waypost-config-'));

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ WAYPOST_DATA_DIR: dataDir(), ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has documented defaults', () => {
    const dir = dataDir();
    const config = loadConfig({ WAYPOST_DATA_DIR: dir });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      baseUrl: 'http://localhost:8080',
      dataDir: dir,
      databaseUrl: undefined,
      logLevel: 'info',
      logFormat: 'auto',
      registrationOpen: false,
      bodyLimit: 1024 * 1024,
      uploadLimit: 100 * 1024 * 1024,
      importLimit: 4 * 1024 * 1024 * 1024,
      trustProxy: false,
      metricsToken: undefined,
      metricsLoopback: false,
      accessTokenTtl: 3600,
      clientRegistrationOpen: true,
      outboundAllow: new Set(),
      inlineWorker: true,
      workerConcurrency: 4,
      jobLeaseSeconds: 60,
      deliveryMaxAttempts: 8,
      retryBaseSeconds: 15,
      retryMaxSeconds: 3600,
      ffmpegPath: 'ffmpeg',
      ffprobePath: 'ffprobe',
      mediaMaxPixels: 100_000_000,
      mediaMaxMetadataBytes: 8 * 1024 * 1024,
      mediaTimeoutMs: 30_000,
      mediaConcurrency: Math.max(1, Math.floor(availableParallelism() / 2)),
    });
  });

  it('reads the media limits', () => {
    const config = loadConfig({
      WAYPOST_DATA_DIR: dataDir(),
      WAYPOST_MEDIA_MAX_PIXELS: '50000000',
      WAYPOST_MEDIA_MAX_METADATA_BYTES: '65536',
      WAYPOST_MEDIA_TIMEOUT_MS: '5000',
      WAYPOST_MEDIA_CONCURRENCY: '3',
    });
    expect(config).toMatchObject({
      mediaMaxPixels: 50_000_000,
      mediaMaxMetadataBytes: 65_536,
      mediaTimeoutMs: 5000,
      mediaConcurrency: 3,
    });
    expect(configError({ WAYPOST_MEDIA_TIMEOUT_MS: '10' }).message).toBe(
      'WAYPOST_MEDIA_TIMEOUT_MS: expected a number from 100 to 3600000, got 10',
    );
    expect(configError({ WAYPOST_MEDIA_CONCURRENCY: '0' }).message).toBe(
      'WAYPOST_MEDIA_CONCURRENCY: expected a number from 1 to 64, got 0',
    );
  });

  it('reads the storage: the data folder by default, a bucket with its settings, and says what is missing', () => {
    expect(loadConfig({ WAYPOST_DATA_DIR: dataDir() }).storage).toEqual({ kind: 'local' });
    expect(
      loadConfig({
        WAYPOST_DATA_DIR: dataDir(),
        WAYPOST_STORAGE: 's3',
        WAYPOST_S3_ENDPOINT: 'http://127.0.0.1:9000',
        WAYPOST_S3_BUCKET: 'media',
        WAYPOST_S3_PREFIX: '/waypost/',
        WAYPOST_S3_ACCESS_KEY_ID: 'key',
        WAYPOST_S3_SECRET_ACCESS_KEY: 'secret',
      }).storage,
    ).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'media',
      prefix: 'waypost/',
      region: 'us-east-1',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      forcePathStyle: true,
    });
    expect(
      loadConfig({
        WAYPOST_DATA_DIR: dataDir(),
        WAYPOST_STORAGE: 's3',
        WAYPOST_S3_BUCKET: 'b',
        WAYPOST_S3_REGION: 'eu-west-1',
      }).storage,
    ).toMatchObject({ endpoint: undefined, region: 'eu-west-1', forcePathStyle: false, accessKeyId: undefined });
    expect(configError({ WAYPOST_STORAGE: 'disk' }).message).toBe(
      'WAYPOST_STORAGE: expected one of local, s3, got "disk"',
    );
    expect(configError({ WAYPOST_STORAGE: 's3' }).message).toBe(
      'WAYPOST_S3_BUCKET: is required when WAYPOST_STORAGE is s3',
    );
    expect(configError({ WAYPOST_STORAGE: 's3', WAYPOST_S3_BUCKET: 'b', WAYPOST_S3_ACCESS_KEY_ID: 'k' }).message).toBe(
      'WAYPOST_S3_SECRET_ACCESS_KEY: set both WAYPOST_S3_ACCESS_KEY_ID and WAYPOST_S3_SECRET_ACCESS_KEY, or neither',
    );
  });

  it('reads the outbound allow list and the job settings', () => {
    const config = loadConfig({
      WAYPOST_DATA_DIR: dataDir(),
      WAYPOST_OUTBOUND_ALLOW: 'Loopback, private,unique-local',
      WAYPOST_INLINE_WORKER: 'false',
      WAYPOST_WORKER_CONCURRENCY: '8',
      WAYPOST_JOB_LEASE_SECONDS: '30',
      WAYPOST_DELIVERY_MAX_ATTEMPTS: '3',
      WAYPOST_RETRY_BASE_SECONDS: '2',
      WAYPOST_RETRY_MAX_SECONDS: '60',
    });
    expect(config).toMatchObject({
      outboundAllow: new Set(['loopback', 'private', 'unique-local']),
      inlineWorker: false,
      workerConcurrency: 8,
      jobLeaseSeconds: 30,
      deliveryMaxAttempts: 3,
      retryBaseSeconds: 2,
      retryMaxSeconds: 60,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      WAYPOST_DATA_DIR: dataDir(),
      WAYPOST_HOST: '0.0.0.0',
      WAYPOST_PORT: '9000',
      WAYPOST_BASE_URL: 'https://data.example.org/',
      DATABASE_URL: 'postgres://waypost@db/waypost',
      WAYPOST_LOG_LEVEL: 'WARN',
      WAYPOST_REGISTRATION: 'open',
      WAYPOST_BODY_LIMIT: '2048',
      WAYPOST_UPLOAD_LIMIT: '5000',
      WAYPOST_TRUST_PROXY: 'yes',
      WAYPOST_METRICS_TOKEN: 'scrape-me',
      WAYPOST_METRICS_LOOPBACK: 'true',
      WAYPOST_SECRET_KEY: 'ff'.repeat(32),
      WAYPOST_ACCESS_TOKEN_TTL: '600',
      WAYPOST_CLIENT_REGISTRATION: 'Closed',
      WAYPOST_FFMPEG_PATH: '/opt/ffmpeg/bin/ffmpeg',
      WAYPOST_FFPROBE_PATH: ' /opt/ffmpeg/bin/ffprobe ',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      baseUrl: 'https://data.example.org',
      databaseUrl: 'postgres://waypost@db/waypost',
      logLevel: 'warn',
      registrationOpen: true,
      bodyLimit: 2048,
      uploadLimit: 5000,
      trustProxy: true,
      metricsToken: 'scrape-me',
      metricsLoopback: true,
      accessTokenTtl: 600,
      clientRegistrationOpen: false,
      ffmpegPath: '/opt/ffmpeg/bin/ffmpeg',
      ffprobePath: '/opt/ffmpeg/bin/ffprobe',
    });
    expect(config.secretKey.equals(Buffer.alloc(32, 0xff))).toBe(true);
  });

  it.each([
    [{ WAYPOST_PORT: 'eighty' }, 'WAYPOST_PORT', 'expected a whole number, got "eighty"'],
    [{ WAYPOST_PORT: '70000' }, 'WAYPOST_PORT', 'expected a number from 0 to 65535, got 70000'],
    [{ WAYPOST_BASE_URL: 'example.org' }, 'WAYPOST_BASE_URL', 'expected an absolute http(s) URL'],
    [{ WAYPOST_BASE_URL: 'ftp://example.org' }, 'WAYPOST_BASE_URL', 'expected an http or https URL'],
    [{ WAYPOST_BASE_URL: 'https://example.org/waypost' }, 'WAYPOST_BASE_URL', 'expected an origin without path'],
    [{ DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL', 'expected a postgres:// URL'],
    [{ WAYPOST_DATABASE_URL: 'sqlite:x' }, 'WAYPOST_DATABASE_URL', 'expected a postgres:// URL'],
    [{ WAYPOST_LOG_LEVEL: 'loud' }, 'WAYPOST_LOG_LEVEL', 'expected one of trace, debug, info'],
    [{ WAYPOST_LOG_FORMAT: 'xml' }, 'WAYPOST_LOG_FORMAT', 'expected one of json, pretty, auto'],
    [{ WAYPOST_REGISTRATION: 'maybe' }, 'WAYPOST_REGISTRATION', 'expected one of open, closed'],
    [{ WAYPOST_BODY_LIMIT: '10' }, 'WAYPOST_BODY_LIMIT', 'expected a number from 1024'],
    [{ WAYPOST_TRUST_PROXY: 'sometimes' }, 'WAYPOST_TRUST_PROXY', 'expected true or false'],
    [{ WAYPOST_METRICS_LOOPBACK: 'local' }, 'WAYPOST_METRICS_LOOPBACK', 'expected true or false'],
    [{ WAYPOST_OUTBOUND_ALLOW: 'loopback,intranet' }, 'WAYPOST_OUTBOUND_ALLOW', 'expected a comma-separated list'],
    [{ WAYPOST_JOB_LEASE_SECONDS: '1' }, 'WAYPOST_JOB_LEASE_SECONDS', 'expected a number from 5'],
    [{ WAYPOST_DELIVERY_MAX_ATTEMPTS: '0' }, 'WAYPOST_DELIVERY_MAX_ATTEMPTS', 'expected a number from 1'],
    [{ WAYPOST_SECRET_KEY: 'short' }, 'WAYPOST_SECRET_KEY', 'expected 32 bytes'],
    [{ WAYPOST_ACCESS_TOKEN_TTL: '1h' }, 'WAYPOST_ACCESS_TOKEN_TTL', 'expected a whole number, got "1h"'],
    [{ WAYPOST_ACCESS_TOKEN_TTL: '10' }, 'WAYPOST_ACCESS_TOKEN_TTL', 'expected a number from 60 to 86400, got 10'],
    [{ WAYPOST_CLIENT_REGISTRATION: 'sometimes' }, 'WAYPOST_CLIENT_REGISTRATION', 'expected one of open, closed'],
  ])('refuses %j, naming the variable', (env, variable, message) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(`${variable}: ${message}`);
  });

  it('generates the secret key once into the data folder, readable only by its owner', () => {
    const dir = dataDir();
    const first = loadConfig({ WAYPOST_DATA_DIR: dir });
    const second = loadConfig({ WAYPOST_DATA_DIR: dir });
    expect(first.secretKey).toHaveLength(32);
    expect(second.secretKey.equals(first.secretKey)).toBe(true);
    const file = join(dir, 'secret.key');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secretKey.toString('hex'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('reads the basemap: OpenStreetMap by default, raster tiles, a style document or none, and the origins the map pages may reach', () => {
    const config = (env: Record<string, string>) => loadConfig({ WAYPOST_DATA_DIR: dataDir(), ...env });
    expect(config({})).toMatchObject({
      mapStyle: {
        kind: 'raster',
        tiles: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
        attribution: '© OpenStreetMap contributors',
      },
      mapOrigins: ['https://tile.openstreetmap.org'],
    });
    expect(
      config({
        WAYPOST_MAP_STYLE: 'https://tiles.example.org/v1/{z}/{x}/{y}.png?key=abc',
        WAYPOST_MAP_ATTRIBUTION: '© Example',
      }),
    ).toMatchObject({
      mapStyle: {
        kind: 'raster',
        tiles: 'https://tiles.example.org/v1/{z}/{x}/{y}.png?key=abc',
        attribution: '© Example',
      },
      mapOrigins: ['https://tiles.example.org'],
    });
    expect(
      config({
        WAYPOST_MAP_STYLE: 'https://styles.example.org/liberty.json',
        WAYPOST_MAP_ORIGINS: 'https://tiles.example.org, https://fonts.example.org/glyphs',
      }),
    ).toMatchObject({
      mapStyle: { kind: 'style', url: 'https://styles.example.org/liberty.json' },
      mapOrigins: ['https://styles.example.org', 'https://tiles.example.org', 'https://fonts.example.org'],
    });
    expect(config({ WAYPOST_MAP_STYLE: 'none' })).toMatchObject({ mapStyle: { kind: 'none' }, mapOrigins: [] });
    expect(configError({ WAYPOST_MAP_STYLE: 'ftp://tiles.example.org/{z}/{x}/{y}.png' }).variable).toBe(
      'WAYPOST_MAP_STYLE',
    );
    expect(configError({ WAYPOST_MAP_STYLE: 'https://tiles.example.org/{z}/{x}.png' }).message).toBe(
      'WAYPOST_MAP_STYLE: a raster tile URL needs all of {z}, {x} and {y}',
    );
    expect(configError({ WAYPOST_MAP_ORIGINS: 'not a url' }).variable).toBe('WAYPOST_MAP_ORIGINS');
  });
});
