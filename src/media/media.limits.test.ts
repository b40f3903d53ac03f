// Hostile images through HTTP, made here byte by byte: a JPEG of a few hundred bytes whose EXIF
// directories point back at themselves (tens of seconds of libexif's time each), a PNG that
// declares ten billion pixels, and a JPEG with more metadata than the limit. Each is refused
// with a 422 naming the limit, leaving nothing behind; the server answers other requests while
// an image job is stuck; and a public copy is made once however many strangers ask at once.
import { createHash } from 'node:crypto';
import { deflateSync, crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaFiles } from '../../test/storage.ts';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';

/** A tiny JPEG (8 x 8) with `segment` inserted as its first marker segment. */
async function jpegWith(...segments: Buffer[]): Promise<Buffer> {
  const base = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  return Buffer.concat([base.subarray(0, 2), ...segments, base.subarray(2)]);
}

/** An APP1 marker segment holding `payload`. */
function app1(payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xffe1, 0);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/**
 * EXIF whose one directory (IFD0) holds `entries` pointers to the EXIF, GPS and
 * interoperability directories, every one of them at IFD0's own offset, and whose next
 * directory is IFD0 again.
 */
function loopingExif(entries: number): Buffer {
  const pointers = [0x8769, 0x8825, 0xa005];
  const tiff = Buffer.alloc(8 + 2 + entries * 12 + 4);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(entries, 8);
  for (let i = 0; i < entries; i += 1) {
    const at = 10 + i * 12;
    tiff.writeUInt16LE(pointers[i % pointers.length]!, at);
    tiff.writeUInt16LE(4, at + 2); // LONG
    tiff.writeUInt32LE(1, at + 4);
    tiff.writeUInt32LE(8, at + 8);
  }
  tiff.writeUInt32LE(8, 10 + entries * 12);
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
}

/** A PNG chunk with its CRC (ISO 15948 5.3). */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG whose header declares `width` x `height` RGB pixels; its data holds one row of them. */
function declaredPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1 + width * 3))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small PNG with an eXIf chunk (PNG 3rd edition 11.3.6) right after its header. */
async function pngWithExif(tiff: Buffer): Promise<Buffer> {
  const image = await png();
  const afterHeader = 8 + 25;
  return Buffer.concat([image.subarray(0, afterHeader), chunk('eXIf', tiff), image.subarray(afterHeader)]);
}

/** A JPEG whose APP1 segments (EXIF in name, filler inside) hold more than `bytes` bytes. */
function metadataHeavyJpeg(bytes: number): Promise<Buffer> {
  const payload = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), Buffer.alloc(65_533 - 6, 0x20)]);
  return jpegWith(...Array.from({ length: Math.ceil(bytes / payload.length) + 1 }, () => app1(payload)));
}

const refusal = (code: string, detail: string) => ({
  type: `urn:waypost:problem:${code}`,
  title: 'Unprocessable Entity',
  status: 422,
  detail,
  code,
});

const LOOP_REFUSED = refusal(
  'media_metadata_invalid',
  "The file's EXIF metadata is malformed: its directories point back at each other. The file is refused.",
);
const PIXELS_REFUSED = refusal(
  'media_too_many_pixels',
  'The image has 10000000000 pixels (100000 x 100000), over the limit of 100000000 (WAYPOST_MEDIA_MAX_PIXELS). ' +
    'The file is refused.',
);
const METADATA_REFUSED = refusal(
  'media_metadata_too_large',
  'The file carries more than 8388608 bytes of metadata (WAYPOST_MEDIA_MAX_METADATA_BYTES). The file is refused.',
);

const png = () =>
  sharp({ create: { width: 16, height: 8, channels: 3, background: '#ff8800' } })
    .png()
    .toBuffer();

let t: TestApp;
let uploader: string;

beforeAll(async () => {
  t = await buildTestApp();
  const user = await createTestUser(t.database);
  uploader = await tokenFor(t, user, ['upload_media', 'get_private_scope']);
});
afterAll(() => t.close());

describe('hostile images', () => {
  it('the hostile files are what they claim', async () => {
    const looping = await jpegWith(app1(loopingExif(24)));
    expect(looping.length).toBeLessThan(1000);
    const meta = await sharp(declaredPng(100_000, 100_000), { limitInputPixels: false }).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 100_000, 100_000]);
    expect((await metadataHeavyJpeg(8 * 1024 * 1024)).length).toBeGreaterThan(8 * 1024 * 1024);
  });

  it.each([
    ['a JPEG whose EXIF directories loop', () => jpegWith(app1(loopingExif(24))), 'loop.jpg', LOOP_REFUSED],
    ['a PNG whose eXIf directories loop', () => pngWithExif(loopingExif(24).subarray(6)), 'loop.png', LOOP_REFUSED],
    [
      'a PNG declaring 10 billion pixels',
      () => Promise.resolve(declaredPng(100_000, 100_000)),
      'big.png',
      PIXELS_REFUSED,
    ],
    ['a JPEG with 8 MiB of EXIF segments', () => metadataHeavyJpeg(8 * 1024 * 1024), 'exif.jpg', METADATA_REFUSED],
  ])('refuses %s with 422 naming the limit, and keeps no row and no file', async (_name, make, filename, body) => {
    const rows = await countRows(t.database, 'media');
    const files = await mediaFiles(t);
    const response = await uploadMedium(t, uploader, await make(), filename, 'image/jpeg');
    expect(response.statusCode).toBe(422);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual(body);
    expect(await countRows(t.database, 'media')).toBe(rows);
    expect(await mediaFiles(t)).toEqual(files);
  });
});

/** Waits (a bounded number of turns) until `probe` gives a value. */
async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 3000; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('gave up waiting');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a stuck image job', () => {
  it('holds up no other request; it is killed at its time limit, and the images queued behind it get a fresh worker', async () => {
    const app = await buildTestApp({ env: { WAYPOST_MEDIA_CONCURRENCY: '1', WAYPOST_MEDIA_TIMEOUT_MS: '6000' } });
    try {
      const owner = await createTestUser(app.database);
      const token = await tokenFor(app, owner, ['upload_media', 'get_private_scope']);
      const otherBytes = await png();
      const other = await uploadMedium(app, token, otherBytes, 'other.png', 'image/png');
      expect(other.statusCode).toBe(201);
      const otherFiles = await mediaFiles(app);

      const finished: string[] = [];
      const track = <T>(name: string, promise: Promise<T>) =>
        promise.then((result) => {
          finished.push(name);
          return result;
        });
      const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#123456' } })
        .jpeg()
        .toBuffer();
      // The one worker is frozen, so the next job sticks in it as in a decoder spinning on a
      // hostile file.
      const workers = app.app.mediaJobs.workers();
      expect(workers).toHaveLength(1);
      const pid = workers[0]!;
      process.kill(pid, 'SIGSTOP');
      const stuck = track('stuck', uploadMedium(app, token, photo, 'stuck.jpg', 'image/jpeg'));
      await until(() => (app.app.mediaJobs.running().includes(pid) ? true : undefined));
      const hostile = [
        track('loop', uploadMedium(app, token, await jpegWith(app1(loopingExif(24))), 'a.jpg', 'image/jpeg')),
        track('pixels', uploadMedium(app, token, declaredPng(100_000, 100_000), 'b.png', 'image/png')),
        track('metadata', uploadMedium(app, token, await metadataHeavyJpeg(8 * 1024 * 1024), 'c.jpg', 'image/jpeg')),
      ];

      const health = await app.app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
      const file = await app.app.inject({
        method: 'GET',
        url: `/media/id/${other.json<{ id: string }>().id}/file`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.equals(otherBytes)).toBe(true);
      finished.push('unrelated');
      expect(finished).toEqual(['unrelated']);

      const timedOut = await stuck;
      expect(timedOut.statusCode).toBe(422);
      expect(timedOut.json()).toEqual(
        refusal(
          'media_processing_timeout',
          'Processing the file took longer than the limit of 6000 ms (WAYPOST_MEDIA_TIMEOUT_MS). The file is refused.',
        ),
      );
      await until(() => (alive(pid) ? undefined : true));
      const answers = await Promise.all(hostile);
      expect(answers.map((answer) => [answer.statusCode, answer.json<unknown>()])).toEqual([
        [422, LOOP_REFUSED],
        [422, PIXELS_REFUSED],
        [422, METADATA_REFUSED],
      ]);
      expect(finished.slice(0, 2)).toEqual(['unrelated', 'stuck']);
      expect(await countRows(app.database, 'media')).toBe(1);
      expect(await mediaFiles(app)).toEqual(otherFiles);
    } finally {
      await app.close();
    }
  });
});

describe('the public copy of an image', () => {
  const read = (id: string) => t.app.inject({ method: 'GET', url: `/media/id/${id}/file` });
  const publish = async (bytes: Buffer, filename: string) => {
    const response = await uploadMedium(t, uploader, bytes, filename, 'image/jpeg', { scope: 'public' });
    expect(response.statusCode).toBe(201);
    return response.json<{ id: string; sha256: string }>();
  };

  it('is made once for eight strangers reading a new public photo at the same moment, and never again', async () => {
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#654321' } })
      .jpeg()
      .withExif({ IFD0: { Make: 'Waypost', Model: 'Single flight' } })
      .toBuffer();
    const medium = await publish(photo, 'public.jpg');
    const before = t.app.mediaJobs.started.strip;
    const responses = await Promise.all(Array.from({ length: 8 }, () => read(medium.id)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(8).fill(200));
    const copy = createHash('sha256').update(responses[0]!.rawPayload).digest('hex');
    expect(new Set(responses.map((response) => response.headers.etag))).toEqual(new Set([`"${copy}"`]));
    expect(new Set(responses.map((response) => response.rawPayload.toString('base64'))).size).toBe(1);
    expect(responses[0]!.rawPayload.includes(Buffer.from('Single flight'))).toBe(false);
    expect(t.app.mediaJobs.started.strip - before).toBe(1);
    expect((await read(medium.id)).statusCode).toBe(200);
    expect(t.app.mediaJobs.started.strip - before).toBe(1);
  });

  it('that cannot be made is tried once: every read, racing or later, is the same 404 without more work', async () => {
    // A JPEG cut off before its picture: stored (it sniffs as JPEG), but no copy can be made of it.
    const whole = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#abcdef' } })
      .jpeg()
      .toBuffer();
    const medium = await publish(whole.subarray(0, 120), 'cut.jpg');
    const before = t.app.mediaJobs.started.strip;
    const notFound = {
      type: 'urn:waypost:problem:not_found',
      title: 'Not Found',
      status: 404,
      detail: 'This image can only be shown to its owner: its metadata cannot be removed.',
      code: 'not_found',
    };
    const racing = await Promise.all(Array.from({ length: 8 }, () => read(medium.id)));
    const later = [await read(medium.id), await read(medium.id)];
    for (const response of [...racing, ...later]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(notFound);
    }
    expect(t.app.mediaJobs.started.strip - before).toBe(1);
  });
});
