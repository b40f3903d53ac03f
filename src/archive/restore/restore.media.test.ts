// A restore stores only bytes that are in its archive (docs/data-ownership.md "Restoring an
// export"): an archive that names the hash of someone else's file but leaves the file out gets
// nothing of it, whether that file exists on the server or not (no original with its GPS, no
// oracle), and one whose bytes are not what its hash says is refused. The person's own files
// may be named without their bytes. The `source` of restored posts and points names only the
// services this restore brought back.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../../test/imports.ts';
import { gpsPhoto, uploadMedium } from '../../../test/media.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { makeZip, type ZipInput } from '../../../test/zip.ts';
import { lazyMedia, restoreDeps } from '../../job-runner.ts';
import type { Import } from '../../imports/imports.schemas.ts';

const RESTORE = [
  'create_post',
  'upload_media',
  'write_locations',
  'get_private_scope',
  'manage_views',
  'get_views',
  'update_settings',
  'get_settings',
  'create_service',
  'get_services',
  'manage_groups',
] as const;

const README = 'format: waypost-export\nversion: 1\nusername: x\n\n';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let t: TestApp;
let media: ReturnType<typeof lazyMedia>;
/** Alice's public photo: its bytes (EXIF GPS included) and what she was told of it. */
let photo: Buffer;
let published: { id: string; sha256: string };
let alice: string;
let mallory: string;
let malloryId: string;

/** One line of media.jsonl naming `hash`, under `id`. */
function mediumLine(id: string, hash: string, scope = 'private') {
  return JSON.stringify({
    id,
    scope,
    kind: 'image',
    mime_type: 'image/jpeg',
    size: 1000,
    sha256: hash,
    width: 64,
    height: 48,
    duration: null,
    time: 1_650_000_000,
    location: null,
    caption: '',
    created_at: 1_650_000_000,
    file: `media/${hash}.jpg`,
  });
}

async function restore(token: string, files: ZipInput[]): Promise<Import> {
  const response = await uploadImport(t, token, makeZip([{ name: 'README.txt', data: README }, ...files]), 'x.zip');
  expect(response.statusCode, response.body).toBe(202);
  await drain(importWorker(t, { restore: restoreDeps(t.config, media) }));
  const done = await t.app.inject({
    url: `/imports/${response.json<{ id: string }>().id}`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(done.statusCode).toBe(200);
  return done.json<Import>();
}

const get = (url: string, token?: string) =>
  t.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });

beforeAll(async () => {
  t = await buildTestApp();
  media = lazyMedia(t.config);
  const owner = await createTestUser(t.database, { username: 'alice' });
  alice = await tokenFor(t, owner, [...RESTORE]);
  const attacker = await createTestUser(t.database, { username: 'mallory' });
  malloryId = attacker.id;
  mallory = await tokenFor(t, attacker, [...RESTORE]);
  photo = await gpsPhoto('#3366cc');
  const response = await uploadMedium(t, alice, photo, 'IMG_1.JPG', 'image/jpeg', { scope: 'public' });
  expect(response.statusCode).toBe(201);
  published = response.json();
  expect(published.sha256).toBe(sha256(photo));
}, 60_000);
afterAll(async () => {
  media.close();
  await t.close();
});

describe("a restore naming another account's file", () => {
  it('without its bytes is refused for that medium, exactly as a file that exists nowhere; the rest is restored', async () => {
    const nowhere = sha256(Buffer.from('no such file anywhere'));
    const attempt = async (hash: string, id: string) => {
      const done = await restore(mallory, [
        { name: 'media.jsonl', data: `${mediumLine(id, hash, 'public')}\n` },
        {
          name: 'posts.jsonl',
          data: `${JSON.stringify({ id: `${id.slice(0, 25)}P`, text: 'look', scope: 'private', time: 1_650_000_000, created_at: 1_650_000_000, media_ids: [id], location: null, source: null })}\n`,
        },
      ]);
      // The same answer for both but the hash the archive itself named.
      return JSON.parse(JSON.stringify(done).replaceAll(hash, '<hash>').replaceAll(id, '<id>')) as Import;
    };
    const existing = await attempt(published.sha256, '01HZZZZZZZZZZZZZZZZZZZZZA1');
    const absent = await attempt(nowhere, '01HZZZZZZZZZZZZZZZZZZZZZB1');
    expect(existing.status).toBe('done');
    expect(existing.errors).toEqual([
      { where: 'media.jsonl line 1', message: 'its file media/<hash>.jpg is not in the archive' },
      { where: 'posts.jsonl line 1', message: '1 of its media were not restored; left out' },
    ]);
    expect(existing.items?.media).toEqual({ seen: 1, stored: 0, duplicates: 0, skipped: 1 });
    expect(existing.items?.posts).toEqual({ seen: 1, stored: 1, duplicates: 0, skipped: 0 });
    const comparable = ({
      id: _id,
      filename: _f,
      size: _size,
      created_at: _c,
      started_at: _s,
      finished_at: _e,
      ...rest
    }: Import) => rest;
    expect(comparable(existing)).toEqual(comparable(absent));
    // Mallory holds no medium, so no URL of hers can serve Alice's original.
    const own = await t.database.db.selectFrom('media').select('id').where('user_id', '=', malloryId).execute();
    expect(own).toEqual([]);
    for (const id of ['01HZZZZZZZZZZZZZZZZZZZZZA1', '01HZZZZZZZZZZZZZZZZZZZZZB1']) {
      expect((await get(`/media/id/${id}/file`, mallory)).statusCode).toBe(404);
    }
  });

  it('with other bytes than its hash names is refused, and nothing of the file is kept', async () => {
    const before = await countRows(t.database, 'media');
    const other = await gpsPhoto('#cc6633');
    const done = await restore(mallory, [
      { name: 'media.jsonl', data: `${mediumLine('01HZZZZZZZZZZZZZZZZZZZZZC1', published.sha256)}\n` },
      { name: `media/${published.sha256}.jpg`, data: other, stored: true },
    ]);
    expect(done.errors).toEqual([
      { where: 'media.jsonl line 1', message: 'its file does not have the sha256 it names' },
    ]);
    expect(await countRows(t.database, 'media')).toBe(before);
    // Alice's original is still what she uploaded.
    const original = await get(`/media/id/${published.id}/file`, alice);
    expect(original.rawPayload.equals(photo)).toBe(true);
  });

  it('with its bytes is stored: the person then has the file because they had it', async () => {
    const done = await restore(mallory, [
      { name: 'media.jsonl', data: `${mediumLine('01HZZZZZZZZZZZZZZZZZZZZZD1', published.sha256)}\n` },
      { name: `media/${published.sha256}.jpg`, data: photo, stored: true },
    ]);
    expect(done.errors).toEqual([]);
    expect(done.items?.media).toEqual({ seen: 1, stored: 1, duplicates: 0, skipped: 0 });
    const served = await get('/media/id/01HZZZZZZZZZZZZZZZZZZZZZD1/file', mallory);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(photo)).toBe(true);
  });
});

describe("a restore naming the person's own file without its bytes", () => {
  it('links the new medium to the file the person already has', async () => {
    const done = await restore(alice, [
      { name: 'media.jsonl', data: `${mediumLine('01HZZZZZZZZZZZZZZZZZZZZZE1', published.sha256)}\n` },
    ]);
    expect(done.errors).toEqual([]);
    expect(done.items?.media).toEqual({ seen: 1, stored: 1, duplicates: 0, skipped: 0 });
    const served = await get('/media/id/01HZZZZZZZZZZZZZZZZZZZZZE1/file', alice);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(photo)).toBe(true);
  });
});

describe('the source of restored posts and points', () => {
  it('names the service this restore brought back (under its new id), or nothing when the service is not in the archive', async () => {
    const create = async (name: string) => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/services',
        headers: { authorization: `Bearer ${alice}` },
        payload: { type: 'owntracks', name, config: {} },
      });
      expect(response.statusCode).toBe(201);
      return response.json<{ id: string }>().id;
    };
    // Alice's tracker ids: one the archive brings as a service of its own, one it only names.
    const carried = await create('phone');
    const named = await create('watch');
    const service = {
      id: carried,
      type: 'owntracks',
      name: 'my phone',
      enabled: true,
      config: {},
      status: 'ok',
      last_error: null,
      created_at: 1_650_000_000,
    };
    const point = (id: string, time: number, source: string | null) =>
      `\u001e${JSON.stringify({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [13.4, 52.5] },
        properties: { id, scope: 'public', time, source },
      })}`;
    const post = (id: string, source: string | null) =>
      JSON.stringify({
        id,
        text: `from ${source}`,
        scope: 'public',
        time: 1_650_000_000,
        created_at: 1_650_000_000,
        media_ids: [],
        location: null,
        source,
      });
    const done = await restore(mallory, [
      { name: 'services.json', data: JSON.stringify([service]) },
      {
        name: 'locations.geojsonseq',
        data: [
          point('01HZZZZZZZZZZZZZZZZZZZZZL1', 1_650_000_001, carried),
          point('01HZZZZZZZZZZZZZZZZZZZZZL2', 1_650_000_002, named),
          point('01HZZZZZZZZZZZZZZZZZZZZZL3', 1_650_000_003, null),
        ].join('\n'),
      },
      {
        name: 'posts.jsonl',
        data: [post('01HZZZZZZZZZZZZZZZZZZZZZS1', carried), post('01HZZZZZZZZZZZZZZZZZZZZZS2', named)].join('\n'),
      },
    ]);
    expect(done.errors).toEqual([]);
    const services = (await get('/services', mallory)).json<{ id: string; name: string }[]>();
    expect(services.map((s) => s.name)).toEqual(['my phone']);
    const restored = services[0]!.id;
    expect(restored).not.toBe(carried);
    const points = (await get('/locations/public?order=asc', mallory)).json<{ id: string; source: unknown }[]>();
    expect(points.map((p) => [p.id, p.source])).toEqual([
      ['01HZZZZZZZZZZZZZZZZZZZZZL1', restored],
      ['01HZZZZZZZZZZZZZZZZZZZZZL2', null],
      ['01HZZZZZZZZZZZZZZZZZZZZZL3', null],
    ]);
    const posts = (await get('/posts/public?order=asc', mallory)).json<{ id: string; source: unknown }[]>();
    expect(posts.map((p) => [p.id, p.source])).toEqual([
      ['01HZZZZZZZZZZZZZZZZZZZZZS1', restored],
      ['01HZZZZZZZZZZZZZZZZZZZZZS2', null],
    ]);
  });
});
