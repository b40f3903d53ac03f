// The stores behind every file (docs/design.md "Storage"): the folder always, and the bucket of
// a real S3 server when the tests run against one (TEST_S3_ENDPOINT, test/s3.ts). Each keeps the
// same contract; `storage migrate` moves everything between two stores, verified and resumable;
// and with a bucket, a second node with a data folder of its own serves the first's media and
// runs its imports.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, testConfig, type TestApp } from '../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../test/imports.ts';
import { uploadMedium } from '../../test/media.ts';
import { TEST_S3_ENDPOINT } from '../../test/s3.ts';
import { tokenFor } from '../../test/tokens.ts';
import { buildApp } from '../app.ts';
import type { StorageConfig } from '../config.ts';
import { importFiles } from '../imports/imports.files.ts';
import { LocalStore } from './local.ts';
import { isMigrated, migrateStore } from './migrate.ts';
import { S3Store } from './s3.ts';
import { MissingObject, type BlobStore } from './store.ts';

let t: TestApp;
let scratch: string;

beforeAll(async () => {
  t = await buildTestApp();
  scratch = mkdtempSync(join(tmpdir(), 'waypost-storage-'));
});
afterAll(async () => {
  await t.close();
  rmSync(scratch, { recursive: true, force: true });
});

const withBucket = Boolean(TEST_S3_ENDPOINT);

/** A store of its own each time: a new folder, or a new prefix under the app's in the test bucket. */
function bucketStore(): BlobStore {
  const storage = t.config.storage;
  if (storage.kind !== 's3') throw new Error('the tests run without a bucket');
  return new S3Store({ ...storage, prefix: `${storage.prefix}${randomBytes(4).toString('hex')}/` });
}
const folderStore = () => new LocalStore(mkdtempSync(join(scratch, 'folder-')));
const stores: [string, () => BlobStore][] = [
  ['a folder', folderStore],
  ...(withBucket ? [['the bucket', bucketStore] as [string, () => BlobStore]] : []),
];

async function bytesOf(store: BlobStore, key: string, range?: { start: number; end: number }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await store.read(key, range)) as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function localFile(bytes: Buffer): string {
  const path = join(scratch, `file-${randomBytes(6).toString('hex')}`);
  writeFileSync(path, bytes);
  return path;
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(stores)('%s', (_name, makeStore) => {
  it('stores a 9 MiB file (several parts in a bucket) and reads it whole and by range', async () => {
    const store = makeStore();
    const bytes = randomBytes(9 * 1024 * 1024 + 17);
    const key = `media/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
    const path = localFile(bytes);
    await store.upload(key, path);
    expect(readFileSync(path).equals(bytes)).toBe(true); // the source stays
    expect((await store.head(key))?.size).toBe(bytes.length);
    expect(sha(await bytesOf(store, key))).toBe(sha(bytes));
    const start = 8 * 1024 * 1024 - 5;
    expect((await bytesOf(store, key, { start, end: start + 9 })).equals(bytes.subarray(start, start + 10))).toBe(true);
    await store.remove(key);
    expect(await store.head(key)).toBeUndefined();
    await expect(store.read(key)).rejects.toBeInstanceOf(MissingObject);
  });

  it('places without replacing, adopts a file (gone afterwards), moves, lists and removes', async () => {
    const store = makeStore();
    const first = Buffer.from('first');
    const placedPath = localFile(first);
    expect(await store.place('media/ab/one', placedPath)).toBe('placed');
    expect(readFileSync(placedPath).equals(first)).toBe(true);
    expect(await store.place('media/ab/one', localFile(Buffer.from('second')))).toBe('present');
    expect((await bytesOf(store, 'media/ab/one')).toString()).toBe('first');

    const adopted = localFile(Buffer.from('adopted'));
    await store.adopt('imports/ID1', adopted);
    expect(() => readFileSync(adopted)).toThrow();
    await store.adopt('imports/ID1', localFile(Buffer.from('other'))); // kept: the same key is there
    expect((await bytesOf(store, 'imports/ID1')).toString()).toBe('adopted');

    expect(await store.move('media/ab/one', 'media/tmp/retired/one.x')).toBe(true);
    expect(await store.move('media/ab/one', 'media/tmp/retired/one.y')).toBe(false);
    const listed = [];
    for await (const object of store.list('media/')) listed.push([object.key, object.size]);
    expect(listed).toEqual([['media/tmp/retired/one.x', 5]]);
    await store.remove('media/tmp/retired/one.x');
    await store.remove('media/tmp/retired/one.x'); // nothing there: no error
    await store.remove('imports/ID1');
    const left = [];
    for await (const object of store.list('')) left.push(object.key);
    expect(left).toEqual([]);
  });
});

/** Fills a store as a data folder would be: originals with thumbnails, an import, and scratch. */
async function fill(store: BlobStore): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < 3; i += 1) {
    const bytes = randomBytes(1000 + i);
    const key = `media/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
    files.set(key, bytes).set(`${key}.webp`, randomBytes(50));
  }
  files.set('imports/01JIMPORT', Buffer.from('{"locations":[]}'));
  for (const [key, bytes] of files) await store.upload(key, localFile(bytes));
  await store.upload('media/tmp/abc.part', localFile(Buffer.from('half an upload')));
  await store.upload('imports/abc.part', localFile(Buffer.from('half an import')));
  return files;
}

async function contents(store: BlobStore): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const object of store.list('')) found.set(object.key, sha(await bytesOf(store, object.key)));
  return found;
}

const migrations: [string, () => BlobStore, () => BlobStore][] = [
  ['a folder to another', folderStore, folderStore],
  ...(withBucket
    ? ([
        ['a folder to the bucket', folderStore, bucketStore],
        ['the bucket to a folder', bucketStore, folderStore],
      ] as [string, () => BlobStore, () => BlobStore][])
    : []),
];

describe.each(migrations)('storage migrate from %s', (_name, makeSource, makeTarget) => {
  it('copies every file but scratch, verified; a second run copies only what is new; a bad original is refused', async () => {
    const source = makeSource();
    const target = makeTarget();
    const files = await fill(source);
    const journal = join(scratch, `journal-${randomBytes(4).toString('hex')}`);
    const seen: number[] = [];
    const first = await migrateStore({ source, target, journal, scratch, onProgress: (p) => seen.push(p.objects) });
    expect(first).toEqual({ copied: files.size, skipped: 0, failed: [] });
    expect(seen.at(-1)).toBe(files.size);
    const expected = new Map([...files].map(([key, bytes]) => [key, sha(bytes)]));
    const copied = await contents(target);
    for (const [key, hash] of expected) expect(copied.get(key)).toBe(hash);
    expect([...copied.keys()].filter((key) => !isMigrated(key))).toEqual([]);

    // Stopped or not, a second run goes on from the journal: only the new file is copied, and
    // one deleted through the target since (a deletion after the switch) is not brought back.
    const [deleted] = [...files.keys()];
    await target.remove(deleted!);
    const late = randomBytes(64);
    const lateKey = `media/${sha(late).slice(0, 2)}/${sha(late)}`;
    await source.upload(lateKey, localFile(late));
    // An original whose bytes are not the hash it is named by is reported, not copied.
    const wrongKey = `media/${'0'.repeat(2)}/${'0'.repeat(64)}`;
    await source.upload(wrongKey, localFile(Buffer.from('not what the name says')));
    const second = await migrateStore({ source, target, journal, scratch });
    expect(second.copied).toBe(1);
    expect(second.skipped).toBe(files.size);
    expect(second.failed).toEqual([{ key: wrongKey, reason: 'its bytes do not have the SHA-256 its name is' }]);
    expect(await target.head(deleted!)).toBeUndefined();
    expect(sha(await bytesOf(target, lateKey))).toBe(sha(late));
    expect(await target.head(wrongKey)).toBeUndefined();
  });
});

/** With a bucket: a second node, with a data folder of its own and the same database and bucket. */
const nodes: [string, StorageConfig['kind']][] = withBucket ? [['the bucket', 's3']] : [];

describe.each(nodes)('two nodes sharing %s', () => {
  it('a medium uploaded through one node is served by the other; an import uploaded to one is run by a worker of the other', async () => {
    const otherDir = mkdtempSync(join(scratch, 'node-b-'));
    const config = { ...testConfig(otherDir), storage: t.config.storage };
    const nodeB = await buildApp({ config, database: t.database });
    await nodeB.ready();
    try {
      const owner = await createTestUser(t.database);
      const token = await tokenFor(t, owner, ['upload_media', 'get_private_scope', 'write_locations']);
      const image = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#345678' } })
        .png()
        .toBuffer();
      const medium = (await uploadMedium(t, token, image, 'a.png', 'image/png')).json<{ id: string }>();
      const served = await nodeB.inject({
        method: 'GET',
        url: `/media/id/${medium.id}/file`,
        headers: { authorization: `Bearer ${token}`, range: 'bytes=0-7' },
      });
      expect(served.statusCode).toBe(206);
      expect(served.rawPayload.equals(image.subarray(0, 8))).toBe(true);

      const records = {
        locations: [{ latitudeE7: 481000000, longitudeE7: 115000000, timestamp: '2024-01-01T00:00:00Z' }],
      };
      const upload = await uploadImport(t, token, JSON.stringify(records), 'Records.json');
      expect(upload.statusCode).toBe(202);
      const { id } = upload.json<{ id: string }>();
      await drain(importWorker(t, { files: importFiles(config) }));
      const done = await nodeB.inject({
        method: 'GET',
        url: `/imports/${id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(done.json()).toMatchObject({ status: 'done', points_stored: 1 });
      // The upload is gone from the bucket once its import has ended.
      expect(await importFiles(config).store.head(`imports/${id}`)).toBeUndefined();
    } finally {
      await nodeB.close();
    }
  });
});
