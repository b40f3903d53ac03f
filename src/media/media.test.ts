// Uploads through HTTP: real images made here with sharp (EXIF time and GPS included), a file
// whose name lies, one over the limit, and one that breaks off; then the files as served.
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaFiles } from '../../test/storage.ts';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { multipart, uploadMedium } from '../../test/media.ts';
import { listeningTestApp } from '../../test/server.ts';
import { byClass, expectAnswer, refused, unknownField, type FieldError, type InputClass } from '../../test/fuzz.ts';
import { tokenFor } from '../../test/tokens.ts';
import { updateSettings } from '../settings/settings.logic.ts';

const anyNumber: unknown = expect.any(Number);
const ulid: unknown = expect.stringMatching(/^[0-9A-Z]{26}$/);
const near = (value: number): unknown => expect.closeTo(value, 6);

let t: TestApp;
let user: Awaited<ReturnType<typeof createTestUser>>;
let uploader: string;
let reader: string;
let stranger: string;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database, { username: 'photographer' });
  uploader = await tokenFor(t, user, ['upload_media']);
  reader = await tokenFor(t, user, ['get_private_scope']);
  const other = await createTestUser(t.database);
  stranger = await tokenFor(t, other, ['get_private_scope', 'upload_media']);
});
afterAll(() => t.close());

/** A JPEG with EXIF: taken 2024-05-01 12:34:56 (offset given or not), at 52°31'12"N 13°24'18"E. */
function jpeg(offset?: string) {
  return sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366cc' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'Waypost', Model: 'Test camera' },
      IFD2: { DateTimeOriginal: '2024:05:01 12:34:56', ...(offset ? { OffsetTimeOriginal: offset } : {}) },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '52/1 31/1 12/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '13/1 24/1 18/1',
      },
    })
    .toBuffer();
}
const png = () =>
  sharp({ create: { width: 8, height: 4, channels: 4, background: '#ff000080' } })
    .png()
    .toBuffer();

const upload = (app: TestApp, file: Buffer, filename: string, type: string, fields = {}, token = uploader) =>
  uploadMedium(app, token, file, filename, type, fields);

const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

type MediumBody = { id: string; url: string; thumbnail_url: string; sha256: string; size: number; time: number };

describe('POST /media', () => {
  it('stores a JPEG with EXIF: sniffed type, size, hash, time in UTC, GPS, dimensions; private by default', async () => {
    const bytes = await jpeg('+02:00');
    const response = await upload(t, bytes, 'IMG_0001.JPG', 'image/jpeg', { caption: ' Blue. ' });
    expect(response.statusCode).toBe(201);
    const body = response.json<MediumBody>();
    expect(response.headers.location).toBe(`/media/id/${body.id}`);
    expect(body).toEqual({
      id: ulid,
      username: 'photographer',
      scope: 'private',
      kind: 'image',
      mime_type: 'image/jpeg',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      width: 640,
      height: 480,
      duration: null,
      time: Date.UTC(2024, 4, 1, 10, 34, 56) / 1000,
      location: { lat: near(52.52), lon: near(13.405) },
      location_source: 'exif',
      caption: 'Blue.',
      url: `http://waypost.test/media/id/${body.id}/file`,
      thumbnail_url: `http://waypost.test/media/id/${body.id}/thumbnail`,
      created_at: anyNumber,
    });
    expect(await get(`/media/id/${body.id}`, reader).then((r) => r.json<unknown>())).toEqual(body);
  });

  it("reads an EXIF time without offset in the owner's time zone", async () => {
    const bytes = await jpeg();
    expect((await upload(t, bytes, 'a.jpg', 'image/jpeg')).json<MediumBody>().time).toBe(
      Date.UTC(2024, 4, 1, 12, 34, 56) / 1000,
    );
    await updateSettings(t.database.db, user.id, { timezone: 'America/New_York' });
    expect((await upload(t, bytes, 'a.jpg', 'image/jpeg')).json<MediumBody>().time).toBe(
      Date.UTC(2024, 4, 1, 16, 34, 56) / 1000,
    );
    await updateSettings(t.database.db, user.id, { timezone: 'UTC' });
  });

  it('trusts the bytes, not the name or the declared type', async () => {
    const lying = await upload(t, await png(), 'holiday.jpg', 'image/jpeg', { scope: 'public' });
    expect(lying.statusCode).toBe(201);
    expect(lying.json()).toMatchObject({ mime_type: 'image/png', kind: 'image', width: 8, height: 4, scope: 'public' });
    const rows = await countRows(t.database, 'media');
    const files = (await mediaFiles(t)).length;
    const script = Buffer.from('#!/bin/sh\necho pwned\n'.repeat(20));
    const text = await upload(t, script, 'cat.jpg', 'image/jpeg');
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ code: 'unsupported_media_type' });
    expect(await countRows(t.database, 'media')).toBe(rows);
    expect(await mediaFiles(t)).toHaveLength(files);
  });

  it('400 for a missing file, an unknown field or a bad scope; 415 for a body that is not multipart; 401 without upload_media', async () => {
    const bytes = await png();
    expect((await upload(t, bytes, 'a.png', 'image/png', { scope: 'friends' })).statusCode).toBe(400);
    expect((await upload(t, bytes, 'a.png', 'image/png', { owner: 'someone' })).statusCode).toBe(400);
    const form = new FormData();
    form.append('caption', 'no file');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const noFile = await t.app.inject({
      method: 'POST',
      url: '/media',
      headers: { authorization: `Bearer ${uploader}`, 'content-type': request.headers.get('content-type')! },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expect(noFile.statusCode).toBe(400);
    const json = await t.app.inject({
      method: 'POST',
      url: '/media',
      headers: { authorization: `Bearer ${uploader}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(json.statusCode).toBe(415);
    const lacking = await upload(t, bytes, 'a.png', 'image/png', {}, reader);
    expect(lacking.statusCode).toBe(401);
    expect(lacking.headers['www-authenticate']).toContain('scope="upload_media"');
  });

  it('413 for a file over the upload limit, leaving no row and no file', async () => {
    const small = await buildTestApp({ env: { WAYPOST_UPLOAD_LIMIT: '2000' } });
    try {
      const owner = await createTestUser(small.database);
      const token = await tokenFor(small, owner, ['upload_media']);
      const big = await jpeg();
      expect(big.length).toBeGreaterThan(2000);
      const response = await upload(small, big, 'big.jpg', 'image/jpeg', {}, token);
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ code: 'payload_too_large' });
      expect(await countRows(small.database, 'media')).toBe(0);
      expect(await mediaFiles(small)).toEqual([]);
      expect((await upload(small, await png(), 'ok.png', 'image/png', {}, token)).statusCode).toBe(201);
    } finally {
      await small.close();
    }
  });

  it('an upload that breaks off leaves no row and no file', async () => {
    const live = await listeningTestApp();
    try {
      const owner = await createTestUser(live.database);
      const token = await tokenFor(live, owner, ['upload_media']);
      const { payload, contentType } = await multipart(await jpeg(), 'a.jpg', 'image/jpeg');
      const { port } = new URL(live.baseUrl);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /media HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
              `Content-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`,
          );
          // Half the body, then the connection is gone.
          socket.write(payload.subarray(0, Math.floor(payload.length / 2)), () => {
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 100);
          });
        });
        socket.on('error', reject);
      });
      // The server notices the closed connection asynchronously: wait for the temp file to go.
      for (let i = 0; i < 100 && (await mediaFiles(live)).length > 0; i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(await mediaFiles(live)).toEqual([]);
      expect(await countRows(live.database, 'media')).toBe(0);
    } finally {
      await live.close();
    }
  });

  it('every class of upload gets its exact answer, and none a 5xx', async () => {
    const filesBefore = await mediaFiles(t);
    // Bytes no sniffer takes for a media file: lower-case letters and spaces (plain text).
    const text = fc.stringMatching(/^[a-z ]{0,200}$/).map((v) => Buffer.from(v));
    const scope = fc.constantFrom('public', 'private');
    const problem = (status: number, title: string, code: string, detail: string, errors?: FieldError[]) => ({
      status,
      body: { type: `urn:waypost:problem:${code}`, title, status, detail, code, ...(errors ? { errors } : {}) },
    });
    type Case = { bytes: Buffer; fields: Record<string, string> };
    const classes: InputClass<Case>[] = [
      {
        name: 'an unknown field',
        inputs: fc
          .tuple(text, unknownField(['scope', 'caption']), fc.string({ maxLength: 10 }))
          .map(([bytes, field, value]) => ({ bytes, fields: { [field]: value } })),
        answer: ({ fields }) => {
          const field = Object.keys(fields)[0]!;
          return refused(`Unknown field "${field}".`, [{ path: `body/${field}`, message: 'is not a known field' }]);
        },
      },
      {
        name: 'a scope that is neither public nor private',
        inputs: fc
          .tuple(
            text,
            fc.string({ maxLength: 10 }).filter((v) => v !== 'public' && v !== 'private'),
          )
          .map(([bytes, value]) => ({ bytes, fields: { scope: value } })),
        answer: () =>
          refused('scope must be "public" or "private".', [
            { path: 'body/scope', message: 'must be public or private' },
          ]),
      },
      {
        name: 'a caption over 2000 characters',
        inputs: fc
          .tuple(text, fc.integer({ min: 2001, max: 2100 }))
          .map(([bytes, length]) => ({ bytes, fields: { caption: 'c'.repeat(length) } })),
        answer: () =>
          refused('The caption is over 2000 characters.', [
            { path: 'body/caption', message: 'must be at most 2000 characters' },
          ]),
      },
      {
        name: 'a file that is not an image, video or audio',
        inputs: fc
          .tuple(text, fc.option(scope, { nil: undefined }), fc.string({ maxLength: 50 }))
          .map(([bytes, s, caption]) => ({ bytes, fields: { ...(s ? { scope: s } : {}), caption } })),
        answer: () =>
          problem(
            415,
            'Unsupported Media Type',
            'unsupported_media_type',
            'The file is not an image, video or audio file (judged by its bytes).',
          ),
      },
    ];
    await fc.assert(
      fc.asyncProperty(byClass(classes), fc.string({ minLength: 1, maxLength: 20 }), async (drawn, name) => {
        const { bytes, fields } = drawn.input;
        const response = await upload(t, bytes, name, 'application/octet-stream', fields);
        expectAnswer(drawn.name, { bytes: bytes.length, fields }, response, drawn.answer);
      }),
      { numRuns: 60 },
    );
    // Refused uploads leave no file behind.
    expect(await mediaFiles(t)).toEqual(filesBefore);

    // Multipart bodies that are broken as multipart.
    const post = (contentType: string, payload: Buffer) =>
      t.app.inject({
        method: 'POST',
        url: '/media',
        headers: { authorization: `Bearer ${uploader}`, 'content-type': contentType },
        payload,
      });
    const malformed = (why: string) => refused(`The multipart body is malformed or incomplete: ${why}.`);
    const broken: InputClass<{ contentType: string; payload: Buffer }>[] = [
      {
        name: 'no boundary',
        inputs: text.map((payload) => ({ contentType: 'multipart/form-data', payload })),
        answer: () => malformed('Multipart: Boundary not found'),
      },
      {
        name: 'a boundary that never appears',
        inputs: fc
          .tuple(
            fc.stringMatching(/^[A-Z0-9]{8,30}$/),
            fc.stringMatching(/^[a-z ]{1,200}$/).map((v) => Buffer.from(v)),
          )
          .map(([boundary, payload]) => ({ contentType: `multipart/form-data; boundary=${boundary}`, payload })),
        answer: () => malformed('Unexpected end of multipart data'),
      },
      {
        name: 'a form without a file',
        inputs: fc.string({ maxLength: 20 }).map((caption) => {
          const boundary = 'fuzzboundary';
          const payload = Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="caption"\r\n\r\n${caption}\r\n--${boundary}--\r\n`,
          );
          return { contentType: `multipart/form-data; boundary=${boundary}`, payload };
        }),
        answer: () => refused('The upload has no file: send it in a part named "file".'),
      },
    ];
    await fc.assert(
      fc.asyncProperty(byClass(broken), async ({ name, input, answer }) => {
        expectAnswer(name, input.contentType, await post(input.contentType, input.payload), answer);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the files of a medium', () => {
  let priv: MediumBody;
  let pub: MediumBody;
  let original: Buffer;
  beforeAll(async () => {
    original = await jpeg('+00:00');
    priv = (await upload(t, original, 'p.jpg', 'image/jpeg')).json();
    pub = (await upload(t, await png(), 'q.png', 'image/png', { scope: 'public' })).json();
  });

  it('serves the file with its type and a strong ETag; 304 on If-None-Match', async () => {
    const response = await get(`/media/id/${priv.id}/file`, reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    expect(response.headers.etag).toBe(`"${priv.sha256}"`);
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.rawPayload.equals(original)).toBe(true);
    const again = await get(`/media/id/${priv.id}/file`, reader, { 'if-none-match': `"${priv.sha256}"` });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves byte ranges: 206 with Content-Range, 416 past the end, everything for a stale If-Range', async () => {
    const url = `/media/id/${priv.id}/file`;
    const head = await get(url, reader, { range: 'bytes=0-9' });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-range']).toBe(`bytes 0-9/${priv.size}`);
    expect(head.rawPayload.equals(original.subarray(0, 10))).toBe(true);
    const tail = await get(url, reader, { range: 'bytes=-5' });
    expect(tail.rawPayload.equals(original.subarray(original.length - 5))).toBe(true);
    const open = await get(url, reader, { range: `bytes=${priv.size - 3}-` });
    expect(open.headers['content-range']).toBe(`bytes ${priv.size - 3}-${priv.size - 1}/${priv.size}`);
    const beyond = await get(url, reader, { range: `bytes=${priv.size}-` });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${priv.size}`);
    const stale = await get(url, reader, { range: 'bytes=0-9', 'if-range': '"something-else"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(priv.size);
  });

  it('the thumbnail is WebP, at most 320 px, and carries no metadata', async () => {
    const response = await get(`/media/id/${priv.id}/thumbnail`, reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/webp');
    const meta = await sharp(response.rawPayload).metadata();
    expect(meta.format).toBe('webp');
    expect([meta.width, meta.height]).toEqual([320, 240]);
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(response.rawPayload.includes(Buffer.from('Waypost'))).toBe(false);
  });

  it('a public photo reaches everyone but its owner without metadata (no exact GPS); the owner gets the original', async () => {
    const photo = await jpeg('+00:00');
    expect(photo.includes(Buffer.from('Test camera'))).toBe(true); // the metadata the copy must lose
    const published = (await upload(t, photo, 'public.jpg', 'image/jpeg', { scope: 'public' })).json<MediumBody>();
    const url = `/media/id/${published.id}/file`;
    for (const token of [undefined, stranger]) {
      const response = await get(url, token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('image/jpeg');
      expect(response.headers.etag).toBe(`"${createHash('sha256').update(response.rawPayload).digest('hex')}"`);
      const meta = await sharp(response.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 480]);
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(response.rawPayload.includes(Buffer.from('Test camera'))).toBe(false);
    }
    const own = await get(url, reader);
    expect(own.headers.etag).toBe(`"${published.sha256}"`);
    expect(own.rawPayload.equals(photo)).toBe(true);
  });

  it('obey the scope rules of the object', async () => {
    for (const which of ['file', 'thumbnail']) {
      expect((await get(`/media/id/${pub.id}/${which}`)).statusCode).toBe(200);
      const anonymous = await get(`/media/id/${priv.id}/${which}`);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="waypost"');
      const foreign = await get(`/media/id/${priv.id}/${which}`, stranger);
      const missing = await get(`/media/id/01ARZ3NDEKTSV4RRFFQ69G5FAV/${which}`, stranger);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.body).toBe(missing.body);
      const bare = await get(`/media/id/${priv.id}/${which}`, uploader);
      expect(bare.statusCode).toBe(401);
      expect(bare.headers['www-authenticate']).toContain('insufficient_scope');
    }
  });
});
