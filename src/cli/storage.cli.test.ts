// `waypost storage migrate` (docs/design.md "Storage"): its usage, and with a test S3 server
// (test/s3.ts), a data folder's media and waiting import moved to the bucket, after which a
// node configured for the bucket serves the medium and runs the import.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, testConfig, type TestApp } from '../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../test/imports.ts';
import { uploadMedium } from '../../test/media.ts';
import { TEST_S3_ENDPOINT, testStorageEnv } from '../../test/s3.ts';
import { tokenFor } from '../../test/tokens.ts';
import { buildApp } from '../app.ts';
import { importFiles } from '../imports/imports.files.ts';
import { configuredStore } from '../storage/open.ts';
import { UsageError } from './output.ts';
import { storageCommand } from './storage.cli.ts';

let t: TestApp;
beforeAll(async () => {
  // The data folder, whatever store the other tests use.
  t = await buildTestApp({ env: { WAYPOST_STORAGE: 'local' } });
});
afterAll(() => t.close());

function output() {
  const lines = { print: [] as string[], info: [] as string[] };
  return { lines, out: { print: (l: string) => lines.print.push(l), info: (l: string) => lines.info.push(l) } };
}

it('needs migrate and --to s3 or local', async () => {
  const { out } = output();
  for (const args of [[], ['migrate'], ['migrate', '--to', 'ftp'], ['move', '--to', 's3']]) {
    await expect(storageCommand(t.database.db, t.config, args, out, {})).rejects.toBeInstanceOf(UsageError);
  }
});

const withBucket: [string][] = TEST_S3_ENDPOINT ? [['the test bucket']] : [];

describe.each(withBucket)('to %s', () => {
  it('moves the media and a waiting import; a node on the bucket then serves and runs them; a second run copies nothing', async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['upload_media', 'get_private_scope', 'write_locations']);
    const image = await sharp({ create: { width: 12, height: 12, channels: 3, background: '#aa3300' } })
      .png()
      .toBuffer();
    const medium = (await uploadMedium(t, token, image, 'a.png', 'image/png')).json<{ id: string }>();
    const records = {
      locations: [{ latitudeE7: 481000000, longitudeE7: 115000000, timestamp: '2024-01-01T00:00:00Z' }],
    };
    const { id: importId } = (await uploadImport(t, token, JSON.stringify(records), 'Records.json')).json<{
      id: string;
    }>();

    // The bucket's settings as an operator sets them, under a prefix of this test's own.
    const env = { ...testStorageEnv(t.config.dataDir), WAYPOST_S3_PREFIX: `migrate-${randomBytes(4).toString('hex')}` };
    const { lines, out } = output();
    expect(await storageCommand(t.database.db, t.config, ['migrate', '--to', 's3'], out, env)).toBe(true);
    // original, thumbnail, import
    expect(lines.print).toEqual(['3 copied and verified, 0 done before, 0 failed']);
    expect(lines.info.at(-2)).toMatch(/^100 %: 3 of 3 files, /);
    expect(lines.info.at(-1)).toMatch(/set WAYPOST_STORAGE=s3/);

    const config = testConfig(t.config.dataDir, { ...env, WAYPOST_STORAGE: 's3' });
    const node = await buildApp({ config, database: t.database });
    await node.ready();
    try {
      const served = await node.inject({
        method: 'GET',
        url: `/media/id/${medium.id}/file`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(image)).toBe(true);
      await drain(importWorker(t, { files: importFiles(config) }));
      const done = await node.inject({
        method: 'GET',
        url: `/imports/${importId}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(done.json()).toMatchObject({ status: 'done', points_stored: 1 });
    } finally {
      await node.close();
    }
    const again = output();
    expect(await storageCommand(t.database.db, config, ['migrate', '--to', 's3'], again.out, env)).toBe(true);
    expect(again.lines.print).toEqual(['0 copied and verified, 3 done before, 0 failed']);
    // The bucket emptied of this test's prefix.
    const store = configuredStore(config);
    for await (const object of store.list('')) await store.remove(object.key);
  });
});
