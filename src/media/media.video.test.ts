// Video and audio through HTTP: files made here by ffmpeg (a test pattern and a tone, with a
// recording time, a place and a device name), probed at upload, thumbnailed, and served to
// strangers without their metadata, checked with ffprobe. Then the same without the tools.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { findMediaTools, missingToolsWarning } from './media.ffmpeg.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'waypost-video-'));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Runs ffmpeg to make a fixture and returns its bytes. */
async function ffmpeg(name: string, args: string[]): Promise<Buffer> {
  const path = join(dir, name);
  await run('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args, path], { timeout: 60_000 });
  return readFileSync(path);
}

interface Probed {
  format: { duration?: string; tags?: Record<string, string> };
  streams: { codec_type: string; codec_name: string; tags?: Record<string, string> }[];
}

async function ffprobe(bytes: Buffer): Promise<Probed> {
  const path = join(dir, `probe-${sha256(bytes)}`);
  writeFileSync(path, bytes);
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path];
  return JSON.parse((await run('ffprobe', args)).stdout) as Probed;
}

/** Every tag of a file, global and per stream, by lower-case name. */
const tagNames = (probed: Probed) =>
  [probed.format.tags, ...probed.streams.map((stream) => stream.tags)].flatMap((tags) =>
    Object.keys(tags ?? {}).map((name) => name.toLowerCase()),
  );

/** `-metadata name=value` for each tag (values may hold spaces, so not split from one string). */
const metadata = (tags: Record<string, string>) =>
  Object.entries(tags).flatMap(([name, value]) => ['-metadata', `${name}=${value}`]);

const TAGS = metadata({
  creation_time: '2024-05-01T10:00:00Z',
  location: '+48.8584+002.2945/',
  title: 'Shot on a Test Phone',
});
const words = (line: string) => line.split(' ');
const testPattern = words('-f lavfi -i testsrc=size=320x240:rate=10 -f lavfi -i sine=frequency=440');
const h264 = words('-t 2 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac');

let t: TestApp;
let owner: string;
let stranger: string;
let video: Buffer;
let rotated: Buffer;
let apple: Buffer;
let mp3: Buffer;

beforeAll(async () => {
  t = await buildTestApp();
  const user = await createTestUser(t.database);
  owner = await tokenFor(t, user, ['upload_media', 'get_private_scope']);
  stranger = await tokenFor(t, await createTestUser(t.database), ['get_private_scope']);
  video = await ffmpeg('video.mp4', [...testPattern, ...h264, ...TAGS]);
  // A phone held upright: the picture is stored landscape, with a quarter turn to show it.
  rotated = await ffmpeg('rotated.mp4', ['-i', join(dir, 'video.mp4'), ...words('-c copy -metadata:s:v rotate=90')]);
  // As an iPhone writes it, with a timecode track: a data stream, as a GoPro's GPS track is one.
  apple = await ffmpeg('apple.mov', [
    ...testPattern,
    ...h264,
    ...metadata({
      'com.apple.quicktime.creationdate': '2024-05-01T12:00:00+0200',
      'com.apple.quicktime.location.ISO6709': '-33.8568+151.2153+005.000/',
      'com.apple.quicktime.make': 'Test Phone',
    }),
    ...words('-movflags use_metadata_tags -timecode 10:00:00:00'),
  ]);
  // With cover art: a picture that could carry EXIF of its own, so the copy drops it.
  mp3 = await ffmpeg('tone.mp3', [
    ...words('-f lavfi -i sine=frequency=440:duration=1.5 -f lavfi -i color=c=red:s=64x64:d=0.1'),
    ...words('-map 0:a -map 1:v -frames:v 1 -c:a libmp3lame -c:v png -disposition:v attached_pic'),
    ...TAGS,
  ]);
}, 60_000);
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

interface MediumBody {
  id: string;
  scope: string;
  sha256: string;
  width: number | null;
  height: number | null;
  duration: number | null;
  time: number;
  location: { lat: number; lon: number } | null;
  thumbnail_url: string | null;
}

async function uploaded(bytes: Buffer, name: string, type: string, fields: Record<string, string> = {}) {
  const response = await uploadMedium(t, owner, bytes, name, type, fields);
  expect(response.statusCode).toBe(201);
  return response.json<MediumBody>();
}

describe('video and audio at upload', () => {
  it('a video: duration, size, recording time in UTC and place from ffprobe', async () => {
    const medium = await uploaded(video, 'clip.mp4', 'video/mp4');
    expect(medium).toMatchObject({
      kind: 'video',
      mime_type: 'video/mp4',
      width: 320,
      height: 240,
      time: Date.UTC(2024, 4, 1, 10, 0, 0) / 1000,
      location: { lat: expect.closeTo(48.8584, 6) as unknown, lon: expect.closeTo(2.2945, 6) as unknown },
    });
    expect(medium.duration).toBeCloseTo(2, 1);
  });

  it('a rotated video has the size it is shown at, and so has its thumbnail', async () => {
    const medium = await uploaded(rotated, 'upright.mp4', 'video/mp4');
    expect([medium.width, medium.height]).toEqual([240, 320]);
    const thumb = await get(`/media/id/${medium.id}/thumbnail`, owner);
    const meta = await sharp(thumb.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([240, 320]);
  });

  it("Apple's tags: the creation date with its own offset, and the ISO 6709 location", async () => {
    const medium = await uploaded(apple, 'IMG_0002.MOV', 'video/quicktime');
    expect(medium).toMatchObject({
      width: 320,
      height: 240,
      time: Date.UTC(2024, 4, 1, 10, 0, 0) / 1000,
      location: { lat: expect.closeTo(-33.8568, 6) as unknown, lon: expect.closeTo(151.2153, 6) as unknown },
    });
  });

  it('the thumbnail of a video is a frame as WebP, at most 320 px, without metadata', async () => {
    const medium = await uploaded(video, 'clip.mp4', 'video/mp4');
    expect(medium.thumbnail_url).toBe(`http://waypost.test/media/id/${medium.id}/thumbnail`);
    const response = await get(`/media/id/${medium.id}/thumbnail`, owner);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/webp');
    const meta = await sharp(response.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 320, 240]);
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    // The test pattern is colourful, not a black or blank frame.
    const { channels } = await sharp(response.rawPayload).stats();
    expect(Math.max(...channels.map((channel) => channel.stdev))).toBeGreaterThan(20);
  });

  it('audio: duration and recording time; no size, no thumbnail', async () => {
    const medium = await uploaded(mp3, 'tone.mp3', 'audio/mpeg');
    expect(medium).toMatchObject({
      kind: 'audio',
      mime_type: 'audio/mpeg',
      width: null,
      height: null,
      time: Date.UTC(2024, 4, 1, 10, 0, 0) / 1000,
      thumbnail_url: null,
    });
    expect(medium.duration).toBeCloseTo(1.5, 1);
  });
});

describe('public video and audio', () => {
  it('reach everyone but their owner without metadata, as the same streams in the same format', async () => {
    const original = await ffprobe(video);
    expect(tagNames(original)).toEqual(expect.arrayContaining(['creation_time', 'location', 'title', 'encoder']));
    const medium = await uploaded(video, 'clip.mp4', 'video/mp4', { scope: 'public' });
    const url = `/media/id/${medium.id}/file`;
    for (const token of [stranger, undefined]) {
      const response = await get(url, token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('video/mp4');
      expect(response.headers.etag).toBe(`"${sha256(response.rawPayload)}"`);
      const copy = await ffprobe(response.rawPayload);
      const names = tagNames(copy);
      for (const tag of ['creation_time', 'location', 'location-eng', 'title', 'encoder']) {
        expect(names).not.toContain(tag);
      }
      expect(copy.streams.map((s) => [s.codec_type, s.codec_name])).toEqual([
        ['video', 'h264'],
        ['audio', 'aac'],
      ]);
      expect(Number(copy.format.duration)).toBeCloseTo(2, 1);
      expect(response.rawPayload.includes(Buffer.from('48.8584'))).toBe(false);
      expect(response.rawPayload.includes(Buffer.from('Test Phone'))).toBe(false);
      // faststart: the index comes before the pictures.
      expect(response.rawPayload.indexOf('moov')).toBeLessThan(response.rawPayload.indexOf('mdat'));
    }
    const own = await get(url, owner);
    expect(own.headers.etag).toBe(`"${medium.sha256}"`);
    expect(sha256(own.rawPayload)).toBe(sha256(video));
  });

  it('keep the rotation they are shown with', async () => {
    const medium = await uploaded(rotated, 'upright.mp4', 'video/mp4', { scope: 'public' });
    const copy = await get(`/media/id/${medium.id}/file`, stranger);
    const path = join(dir, 'rotated-copy.mp4');
    writeFileSync(path, copy.rawPayload);
    const args = [
      '-v',
      'error',
      '-select_streams',
      'v',
      '-show_entries',
      'stream_side_data=rotation',
      '-of',
      'csv=p=0',
    ];
    expect((await run('ffprobe', [...args, path])).stdout.trim()).toBe('90');
  });

  it("audio too, and Apple's own tags, cover art and data tracks go as well", async () => {
    for (const [bytes, name, type, before, after] of [
      [mp3, 'tone.mp3', 'audio/mpeg', ['audio', 'video'], ['audio']],
      [apple, 'IMG_0002.MOV', 'video/quicktime', ['video', 'audio', 'data'], ['video', 'audio']],
    ] as const) {
      expect(bytes.includes(Buffer.from('Test Phone'))).toBe(true); // what the copy must lose
      expect((await ffprobe(bytes)).streams.map((stream) => stream.codec_type)).toEqual(before);
      const medium = await uploaded(bytes, name, type, { scope: 'public' });
      const response = await get(`/media/id/${medium.id}/file`, stranger);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(type);
      const copy = await ffprobe(response.rawPayload);
      expect(copy.streams.map((stream) => stream.codec_type)).toEqual(after);
      const names = tagNames(copy);
      expect(names.filter((tag) => /creation|location|title|make|encoder/.test(tag))).toEqual([]);
      expect(response.rawPayload.includes(Buffer.from('Test Phone'))).toBe(false);
    }
  });

  it('serve byte ranges of the copy', async () => {
    const medium = await uploaded(video, 'clip.mp4', 'video/mp4', { scope: 'public' });
    const url = `/media/id/${medium.id}/file`;
    const whole = (await get(url, stranger)).rawPayload;
    const etag = `"${sha256(whole)}"`;
    const part = await get(url, stranger, { range: 'bytes=100-199', 'if-range': etag });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${whole.length}`);
    expect(part.rawPayload.equals(whole.subarray(100, 200))).toBe(true);
    const beyond = await get(url, stranger, { range: `bytes=${whole.length}-` });
    expect(beyond.statusCode).toBe(416);
  });

  it('a file ffmpeg cannot copy is 404 to strangers, never the original', async () => {
    // Without its index (the moov box at the end) the file is still sniffed as MP4, but unreadable.
    const cut = video.subarray(0, video.indexOf('moov') - 4);
    const medium = await uploaded(cut, 'cut.mp4', 'video/mp4', { scope: 'public' });
    expect(medium).toMatchObject({ duration: null, width: null, thumbnail_url: null });
    const response = await get(`/media/id/${medium.id}/file`, stranger);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
    expect((await get(`/media/id/${medium.id}/file`, owner)).statusCode).toBe(200);
  });
});

describe('without ffmpeg and ffprobe', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await buildTestApp({
      env: { WAYPOST_FFMPEG_PATH: join(dir, 'no-ffmpeg'), WAYPOST_FFPROBE_PATH: join(dir, 'no-ffprobe') },
    });
  });
  afterAll(() => bare.close());

  it('finds them missing, and says what that costs', async () => {
    expect(await findMediaTools(bare.config)).toEqual({ ffmpeg: null, ffprobe: null });
    expect(await findMediaTools(t.config)).toEqual({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe' });
    expect(missingToolsWarning(t.config, await findMediaTools(t.config))).toBeUndefined();
    const warning = missingToolsWarning(bare.config, { ffmpeg: 'ffmpeg', ffprobe: null });
    expect(warning).toBe(
      `${join(dir, 'no-ffprobe')} not found: video and audio get no duration, size, time or place. ` +
        'Install ffmpeg, or set WAYPOST_FFMPEG_PATH and WAYPOST_FFPROBE_PATH.',
    );
  });

  it('uploads still work, knowing less; strangers get 503 media_tool_unavailable, the owner the original', async () => {
    const user = await createTestUser(bare.database);
    const token = await tokenFor(bare, user, ['upload_media', 'get_private_scope']);
    const response = await uploadMedium(bare, token, video, 'clip.mp4', 'video/mp4', { scope: 'public' });
    expect(response.statusCode).toBe(201);
    const medium = response.json<MediumBody>();
    expect(medium).toMatchObject({ width: null, height: null, duration: null, location: null, thumbnail_url: null });
    expect(medium.time).toBeGreaterThan(Date.UTC(2025, 0, 1) / 1000); // the upload, not the recording
    const url = `/media/id/${medium.id}/file`;
    for (const auth of [
      {},
      { authorization: `Bearer ${await tokenFor(bare, await createTestUser(bare.database), [])}` },
    ]) {
      const refused = await bare.app.inject({ method: 'GET', url, headers: auth });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.json()).toMatchObject({
        type: 'urn:waypost:problem:media_tool_unavailable',
        code: 'media_tool_unavailable',
        status: 503,
        detail: expect.stringContaining('ffmpeg') as unknown,
      });
      expect(refused.rawPayload.includes(Buffer.from('48.8584'))).toBe(false);
    }
    const own = await bare.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect(own.statusCode).toBe(200);
    expect(sha256(own.rawPayload)).toBe(sha256(video));
  });
});
