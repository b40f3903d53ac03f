// Where files live, as src/config.ts reads it (docs/design.md "Storage"): the data folder, or an
// S3-compatible bucket with the `WAYPOST_S3_*` settings.
import type { S3Settings } from './storage/s3.ts';
import { boolean, ConfigError, httpUrl, oneOf, read, type Env } from './config.env.ts';

export type StorageConfig = { kind: 'local' } | ({ kind: 's3' } & S3Settings);

export function storage(env: Env): StorageConfig {
  if (oneOf(env, 'WAYPOST_STORAGE', ['local', 's3'], 'local') === 'local') return { kind: 'local' };
  const bucket = read(env, 'WAYPOST_S3_BUCKET');
  if (!bucket) throw new ConfigError('WAYPOST_S3_BUCKET', 'is required when WAYPOST_STORAGE is s3');
  const endpoint = read(env, 'WAYPOST_S3_ENDPOINT');
  if (endpoint !== undefined) httpUrl('WAYPOST_S3_ENDPOINT', endpoint);
  const accessKeyId = read(env, 'WAYPOST_S3_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'WAYPOST_S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? 'WAYPOST_S3_ACCESS_KEY_ID' : 'WAYPOST_S3_SECRET_ACCESS_KEY',
      'set both WAYPOST_S3_ACCESS_KEY_ID and WAYPOST_S3_SECRET_ACCESS_KEY, or neither',
    );
  }
  const prefix = (read(env, 'WAYPOST_S3_PREFIX') ?? '').replace(/^\/+/, '');
  return {
    kind: 's3',
    endpoint,
    bucket,
    prefix,
    region: read(env, 'WAYPOST_S3_REGION') ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, 'WAYPOST_S3_FORCE_PATH_STYLE', endpoint !== undefined),
  };
}
