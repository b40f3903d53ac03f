// Tests against a real S3 server (docs/design.md "Tests"): with TEST_S3_ENDPOINT set (and
// TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY, optionally TEST_S3_REGION and
// TEST_S3_BUCKET), every test app keeps its files in that bucket, under a prefix of its own
// (its data folder's name), instead of in its data folder. `.ci/run` starts a server and runs
// the tests that touch files a third time this way.
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { basename } from 'node:path';

export const TEST_S3_ENDPOINT = process.env.TEST_S3_ENDPOINT || undefined;
const bucket = process.env.TEST_S3_BUCKET || 'waypost-test';
const region = process.env.TEST_S3_REGION || 'us-east-1';

/** The storage settings of a test app whose data folder is `dataDir`: none without a test S3 server. */
export function testStorageEnv(dataDir: string): Record<string, string> {
  if (!TEST_S3_ENDPOINT) return {};
  return {
    WAYPOST_STORAGE: 's3',
    WAYPOST_S3_ENDPOINT: TEST_S3_ENDPOINT,
    WAYPOST_S3_BUCKET: bucket,
    WAYPOST_S3_PREFIX: `${basename(dataDir)}/`,
    WAYPOST_S3_REGION: region,
    WAYPOST_S3_ACCESS_KEY_ID: process.env.TEST_S3_ACCESS_KEY_ID ?? '',
    WAYPOST_S3_SECRET_ACCESS_KEY: process.env.TEST_S3_SECRET_ACCESS_KEY ?? '',
    WAYPOST_S3_FORCE_PATH_STYLE: 'true',
  };
}

/** Vitest's global setup: the test bucket, made once when it is not there. */
export default async function setup(): Promise<void> {
  if (!TEST_S3_ENDPOINT) return;
  const client = new S3Client({
    endpoint: TEST_S3_ENDPOINT,
    region,
    forcePathStyle: true,
    credentials: {
      accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY ?? '',
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket })).catch(async () => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    });
  } finally {
    client.destroy();
  }
}
