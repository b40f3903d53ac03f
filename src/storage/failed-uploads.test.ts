// A failed upload leaves nothing behind (docs/design.md "Storage"), on the data folder and, when
// the tests run against an S3 server (test/s3.ts), in the bucket: no row, no stored object, no
// temporary file, whether the client goes away mid-upload or the store refuses a write. And a
// bucket's multipart upload refused midway leaves no parts in the bucket (they cost room while
// listing nowhere).
import { ListMultipartUploadsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadImport } from '../../test/imports.ts';
import { multipart, uploadMedium } from '../../test/media.ts';
import { TEST_S3_ENDPOINT } from '../../test/s3.ts';
import { listeningTestApp } from '../../test/server.ts';
import { importFileNames, mediaFiles } from '../../test/storage.ts';
import { tokenFor } from '../../test/tokens.ts';
import { configuredStore } from './open.ts';
import { S3Store } from './s3.ts';
import type { BlobStore } from './store.ts';

let t: TestApp & { baseUrl: string };
let token: string;
let store: BlobStore;

beforeAll(async () => {
  t = await listeningTestApp();
  const owner = await createTestUser(t.database);
  token = await tokenFor(t, owner, ['upload_media', 'write_locations']);
  store = configuredStore(t.config);
});
afterAll(() => t.close());
afterEach(() => vi.restoreAllMocks());

const refused = () => new Error('the store refused the write');
const image = (colour: string) =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
    .jpeg()
    .toBuffer();
const gpx = (n: number) =>
  `<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg>${Array.from(
    { length: n },
    (_, i) =>
      `<trkpt lat="48.1" lon="11.${i}"><time>2024-01-01T00:${String(i % 60).padStart(2, '0')}:00Z</time></trkpt>`,
  ).join('')}</trkseg></trk></gpx>`;

/** Every file of the app, media and imports, local and stored. */
async function everyFile(): Promise<string[]> {
  return [...(await mediaFiles(t)), ...(await importFileNames(t)).map((name) => `imports:${name}`)];
}

/** Sends half of a request's body over a socket, then closes it. */
async function cutOff(path: string, payload: Buffer, contentType: string): Promise<void> {
  const { port } = new URL(t.baseUrl);
  await new Promise<void>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`,
      );
      socket.write(payload.subarray(0, Math.floor(payload.length / 2)), () => {
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    socket.on('error', reject);
  });
}

/** The server notices a closed connection asynchronously: waits until the files are back to `expected`. */
async function settledFiles(expected: string[]): Promise<string[]> {
  let files = await everyFile();
  for (let i = 0; i < 100 && JSON.stringify(files) !== JSON.stringify(expected); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    files = await everyFile();
  }
  return files;
}

describe(`a failed upload leaves nothing (${TEST_S3_ENDPOINT ? 'the bucket' : 'the data folder'})`, () => {
  it('a medium whose original the store refuses: 500, no row, no file', async () => {
    const before = await everyFile();
    const rows = await countRows(t.database, 'media');
    vi.spyOn(store, 'place').mockRejectedValue(refused());
    const response = await uploadMedium(t, token, await image('#aa0000'), 'a.jpg', 'image/jpeg');
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'internal_error' });
    expect(await countRows(t.database, 'media')).toBe(rows);
    expect(await everyFile()).toEqual(before);
  });

  it('a medium whose thumbnail the store refuses after taking the original: 500, no row, the original removed', async () => {
    const before = await everyFile();
    const rows = await countRows(t.database, 'media');
    const adopt = store.adopt.bind(store);
    const spy = vi.spyOn(store, 'adopt').mockImplementation(async (key, path) => {
      if (key.endsWith('.webp')) throw refused();
      return adopt(key, path);
    });
    const response = await uploadMedium(t, token, await image('#00aa00'), 'b.jpg', 'image/jpeg');
    expect(spy.mock.calls.map(([key]) => key.endsWith('.webp'))).toEqual([true]);
    expect(response.statusCode).toBe(500);
    expect(await countRows(t.database, 'media')).toBe(rows);
    expect(await everyFile()).toEqual(before);
  });

  it('an import whose file the store refuses: 500, no import, no file', async () => {
    const before = await everyFile();
    vi.spyOn(store, 'adopt').mockRejectedValue(refused());
    const response = await uploadImport(t, token, gpx(5), 'track.gpx');
    expect(response.statusCode).toBe(500);
    expect(await countRows(t.database, 'imports')).toBe(0);
    expect(await everyFile()).toEqual(before);
  });

  it('a medium and an import whose client goes away mid-upload: no row, no file', async () => {
    const before = await everyFile();
    const photo = await multipart(await image('#0000aa'), 'c.jpg', 'image/jpeg');
    await cutOff('/media', photo.payload, photo.contentType);
    const track = await multipart(Buffer.from(gpx(2000)), 'track.gpx', 'application/octet-stream');
    await cutOff('/imports', track.payload, track.contentType);
    expect(await settledFiles(before)).toEqual(before);
    expect(await countRows(t.database, 'media')).toBe(0);
    expect(await countRows(t.database, 'imports')).toBe(0);
    // And the next upload goes through.
    expect((await uploadMedium(t, token, await image('#0000aa'), 'c.jpg', 'image/jpeg')).statusCode).toBe(201);
  });
});

/**
 * Makes the store refuse `upload` of `key` after it began: in a bucket the second part of a
 * multipart upload; in a folder, the rename at the end (a folder is where the file goes).
 */
function refuseMidway(key: string): void {
  if (store instanceof S3Store) {
    const client = store.client;
    const send = client.send.bind(client);
    vi.spyOn(client, 'send').mockImplementation(((command: unknown, ...rest: never[]) => {
      if (command instanceof UploadPartCommand && command.input.PartNumber === 2) return Promise.reject(refused());
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.send);
  } else {
    mkdirSync(join(store.localPath(key)!, 'in-the-way'), { recursive: true });
  }
}

/** What a refused upload may leave in the store besides the object: parts in a bucket, a `.part` file in a folder. */
async function leftovers(key: string): Promise<string[]> {
  if (store instanceof S3Store) {
    const pending = await store.client.send(
      new ListMultipartUploadsCommand({ Bucket: store.bucket, Prefix: `${store.prefix}${key}` }),
    );
    return (pending.Uploads ?? []).map((upload) => upload.Key ?? '');
  }
  const dir = dirname(store.localPath(key)!);
  return readdirSync(dir).filter((name) => name.endsWith('.part'));
}

describe('a large upload the store refuses midway', () => {
  it('leaves no object and nothing half-written (parts of a multipart upload, a .part file)', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'waypost-parts-'));
    try {
      const path = join(scratch, 'big');
      writeFileSync(path, randomBytes(17 * 1024 * 1024));
      const key = `media/zz/refused-${randomBytes(4).toString('hex')}`;
      refuseMidway(key);
      await expect(store.upload(key, path)).rejects.toThrow(
        store instanceof S3Store ? 'the store refused the write' : /EISDIR|ENOTEMPTY|EEXIST/,
      );
      vi.restoreAllMocks();
      if (!(store instanceof S3Store)) rmSync(store.localPath(key)!, { recursive: true });
      expect(await store.head(key)).toBeUndefined();
      expect(await leftovers(key)).toEqual([]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
