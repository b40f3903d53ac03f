// Restoring a Waypost export through POST /imports: the round trip from one server to another
// (SQLite to PostgreSQL when TEST_DATABASE_URL is set, else SQLite to SQLite), compared through
// the API object by object; ids another account holds on the target changing, with the
// references following; a second restore adding nothing; and hostile archives (path traversal,
// bad JSON, a zip bomb, a wrong hash) reported per line without a 5xx or a stray row.
import { importFileNames } from '../../../test/storage.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, countRows, createTestUser, testConfig, type TestApp } from '../../../test/helpers.ts';
import { drain, importWorker, uploadImport } from '../../../test/imports.ts';
import { uploadMedium } from '../../../test/media.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { makeZip } from '../../../test/zip.ts';
import { buildApp } from '../../app.ts';
import { openDatabase } from '../../db/database.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { lazyMedia, restoreDeps } from '../../job-runner.ts';
import type { Import } from '../../imports/imports.schemas.ts';
import { derivedId } from './restore.ids.ts';

/** An app on SQLite whatever TEST_DATABASE_URL says: the source server of the round trip. */
async function sqliteApp(): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'waypost-source-'));
  const database = openDatabase({ sqlitePath: join(dataDir, 'waypost.db') });
  await migrateToLatest(database);
  const config = testConfig(dataDir);
  const app = await buildApp({ config, database });
  await app.ready();
  const drop = async () => rmSync(dataDir, { recursive: true, force: true });
  return {
    app,
    database,
    config,
    close: async () => {
      await app.close();
      await database.close();
      await drop();
    },
    drop,
  };
}

const ALL = [
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
  'export',
] as const;

let source: TestApp;
let target: TestApp;
let sourceToken: string;
let targetToken: string;
let archive: Buffer;
/** Ids on the target that another account holds before the restore. */
const squatted = { post: '', medium: '', service: '', location: '' };
let targetUserId: string;
/** The target's image workers, made once for the file. */
let media: ReturnType<typeof lazyMedia> | undefined;

function restoreWorker(t: TestApp) {
  media ??= lazyMedia(t.config);
  return importWorker(t, { restore: restoreDeps(t.config, media) });
}

async function call(t: TestApp, token: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const response = await t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
  return response.json<Record<string, unknown> & { id: string }>();
}

async function seed(): Promise<void> {
  const owner = await createTestUser(source.database, { username: 'mover', displayName: 'Mover', bio: 'moving' });
  sourceToken = await tokenFor(source, owner, [...ALL]);
  const post = (body: unknown) => call(source, sourceToken, 'POST', '/posts', body);
  const hook = await call(source, sourceToken, 'POST', '/services', {
    type: 'webhook',
    name: 'my hook',
    config: {
      url: 'https://hook.example/in',
      secret: `whsec_${Buffer.from('distinctive-secret-of-the-hook-for-tests').toString('base64')}`,
    },
  });
  await call(source, sourceToken, 'POST', '/services', { type: 'owntracks', name: 'phone', config: {} });
  const group = await call(source, sourceToken, 'POST', '/services/groups', {
    name: 'everywhere',
    service_ids: [hook.id],
  });
  await call(source, sourceToken, 'POST', '/services/groups', { name: 'nowhere', service_ids: [] });
  await call(source, sourceToken, 'POST', '/views', { name: 'walks', kinds: ['locations'], scope: 'private' });
  await call(source, sourceToken, 'POST', '/views', {
    name: 'public notes',
    description: 'what I say',
    kinds: ['posts'],
    scope: 'public',
    filters: { since_time: 1_600_000_000, text: 'hello', bbox: [13, 52, 14, 53] },
  });
  await call(source, sourceToken, 'POST', '/settings', {
    timezone: 'Europe/Berlin',
    public_location_precision_m: 500,
    default_scopes: { posts: 'private' },
    display_name: 'Mover Again',
    bio: 'moved here',
    // Around the first public point: strangers (and the public collections) must not see it on
    // the target either (docs/privacy.md).
    privacy_zones: [{ name: 'home', lat: 52.52, lon: 13.405, radius_m: 300 }],
  });
  const files = await Promise.all(
    ['#102030', '#405060'].map((colour) =>
      sharp({ create: { width: 12, height: 8, channels: 3, background: colour } })
        .png()
        .toBuffer(),
    ),
  );
  const mediaIds: string[] = [];
  for (const [file, scope] of [
    [files[0]!, 'public'],
    [files[1]!, 'private'],
    [files[1]!, 'public'],
  ] as const) {
    const response = await uploadMedium(source, sourceToken, file, 'x.png', 'image/png', {
      scope,
      caption: `caption ${scope}`,
    });
    expect(response.statusCode).toBe(201);
    mediaIds.push(response.json<{ id: string }>().id);
  }
  const shared = await post({
    text: 'public post with a photo',
    groups: [group.id],
    scope: 'public',
    location: { lat: 52.520008, lon: 13.404954 },
    media_ids: [mediaIds[0], mediaIds[2]],
  });
  // The delivery went out: as the worker would have recorded it.
  await source.database.db
    .updateTable('deliveries')
    .set({
      status: 'delivered',
      attempts: 1,
      remote_url: 'https://hook.example/posts/1',
      remote_id: 'at://did:plc:mover/app.bsky.feed.post/3k',
      updated_at: 1_700_000_000_000,
    })
    .where('post_id', '=', shared.id)
    .execute();
  await post({ text: 'private thought', groups: [], scope: 'private', media_ids: [mediaIds[1]] });
  await post({ text: 'hello world', groups: [], scope: 'public' });
  await call(source, sourceToken, 'POST', '/locations', [
    { time: 1_700_000_000, lat: 52.520008, lon: 13.404954, alt: 34.5, accuracy: 5, scope: 'public' },
    { time: 1_700_000_060.5, lat: 52.521111, lon: 13.405555, speed: 1.5, heading: 90, scope: 'private' },
    { time: 1_700_000_120, lat: -33.9, lon: 151.2, scope: 'private' },
  ]);
  const exported = await source.app.inject({
    method: 'GET',
    url: '/export',
    headers: { authorization: `Bearer ${sourceToken}` },
  });
  expect(exported.statusCode).toBe(200);
  archive = exported.rawPayload;

  // On the target another account already holds some of these ids.
  const squatter = await createTestUser(target.database, { username: 'squatter' });
  const sourcePosts = await list(source, sourceToken, 'posts');
  const sourceMedia = await list(source, sourceToken, 'media');
  const sourceServices = await call(source, sourceToken, 'GET', '/services');
  const sourceLocations = await list(source, sourceToken, 'locations');
  squatted.post = sourcePosts.find((p) => p.text === 'public post with a photo')!.id as string;
  squatted.medium = mediaIds[0]!;
  squatted.service = hook.id;
  squatted.location = sourceLocations[0]!.id as string;
  expect(sourceMedia).toHaveLength(3);
  expect(sourceServices).toHaveLength(2);
  const db = target.database.db;
  await db
    .insertInto('posts')
    .values({
      user_id: squatter.id,
      id: squatted.post,
      scope: 'private',
      time: 1,
      created_at: 1,
      text: 'not yours',
      media_ids: '[]',
      lat: null,
      lon: null,
      source: null,
    })
    .execute();
  await db
    .insertInto('media')
    .values({
      user_id: squatter.id,
      id: squatted.medium,
      scope: 'private',
      time: 1,
      created_at: 1,
      kind: 'image',
      mime_type: 'image/png',
      size: 1,
      sha256: 'f'.repeat(64),
      width: 1,
      height: 1,
      duration: null,
      lat: null,
      lon: null,
      caption: '',
      has_thumbnail: 0,
      source: null,
    })
    .execute();
  await db
    .insertInto('services')
    .values({
      id: squatted.service,
      user_id: squatter.id,
      type: 'webhook',
      name: 'not yours',
      enabled: 1,
      config: '{}',
      secrets: '',
      status: 'ok',
      last_error: null,
      created_at: 1,
      updated_at: 1,
      ingest_token_hash: null,
    })
    .execute();
  await db
    .insertInto('locations')
    .values({
      user_id: squatter.id,
      id: squatted.location,
      scope: 'private',
      time: 5,
      created_at: 5,
      lat: 1,
      lon: 1,
      alt: null,
      accuracy: null,
      speed: null,
      heading: null,
      source: null,
    })
    .execute();
}

/** Every item of a kind the token's owner has, both scopes, oldest first. */
async function list(t: TestApp, token: string, kind: 'posts' | 'media' | 'locations') {
  const all: Record<string, unknown>[] = [];
  for (const scope of ['public', 'private']) {
    const page = await t.app.inject({
      method: 'GET',
      url: `/${kind}/${scope}?count=1000&order=asc`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(page.statusCode).toBe(200);
    all.push(...page.json<Record<string, unknown>[]>());
  }
  return all.sort((a, b) => (a.time as number) - (b.time as number) || String(a.text).localeCompare(String(b.text)));
}

async function restore(bytes: Buffer, name = 'export.zip', fields: Record<string, string> = {}): Promise<Import> {
  const response = await uploadImport(target, targetToken, bytes, name, fields);
  expect(response.statusCode, response.body).toBe(202);
  const worker = restoreWorker(target);
  await drain(worker);
  const done = await call(target, targetToken, 'GET', `/imports/${response.json<{ id: string }>().id}`);
  return done as unknown as Import;
}

beforeAll(async () => {
  source = await sqliteApp();
  target = await buildTestApp();
  await seed();
  const person = await createTestUser(target.database, { username: 'mover' });
  targetUserId = person.id;
  targetToken = await tokenFor(target, person, [...ALL]);
}, 120_000);
afterAll(async () => {
  media?.close();
  await source?.close();
  await target?.close();
});

describe('restoring an export', () => {
  let first: Import;
  beforeAll(async () => {
    first = await restore(archive);
  }, 120_000);

  it('is detected as a Waypost export and ends done without errors', () => {
    expect(first.format).toBe('waypost-export');
    expect(first.status).toBe('done');
    expect(first.errors).toEqual([]);
    expect(first.progress).toBe(1);
    expect(first.items).toEqual({
      settings: { seen: 1, stored: 1, duplicates: 0, skipped: 0 },
      services: { seen: 2, stored: 2, duplicates: 0, skipped: 0 },
      groups: { seen: 2, stored: 2, duplicates: 0, skipped: 0 },
      views: { seen: 2, stored: 2, duplicates: 0, skipped: 0 },
      places: { seen: 0, stored: 0, duplicates: 0, skipped: 0 },
      visit_corrections: { seen: 0, stored: 0, duplicates: 0, skipped: 0 },
      media: { seen: 3, stored: 3, duplicates: 0, skipped: 0 },
      posts: { seen: 3, stored: 3, duplicates: 0, skipped: 0 },
    });
    expect([first.points_seen, first.points_stored, first.duplicates, first.skipped]).toEqual([3, 3, 0, 0]);
  });

  it('brings back the same data, read through the API, but for the ids another account held', async () => {
    const newId = (table: Parameters<typeof derivedId>[1], id: string) => derivedId(targetUserId, table, id, 0);
    const renamed = new Map([
      [squatted.post, newId('posts', squatted.post)],
      [squatted.medium, newId('media', squatted.medium)],
      [squatted.service, newId('services', squatted.service)],
      [squatted.location, newId('locations', squatted.location)],
    ]);
    // The source's objects with the ids the target had to give them.
    const expected = (value: unknown) =>
      JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
        typeof v === 'string' ? (renamed.get(v) ?? v) : v,
      ) as unknown;
    const rename = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value).replaceAll(/\/(media|services)\/id\/[0-9A-Z]+|\/ingest\/[0-9A-Z]+/g, (path) => {
          const id = path.split('/').pop()!;
          return path.slice(0, -id.length) + (renamed.get(id) ?? id);
        }),
      ) as unknown;
    for (const kind of ['posts', 'media', 'locations'] as const) {
      const before = await list(source, sourceToken, kind);
      const after = await list(target, targetToken, kind);
      expect(after, kind).toEqual(rename(expected(before)));
      expect(after.length, kind).toBeGreaterThan(0);
    }
    for (const path of ['/views', '/settings', '/services/groups']) {
      expect(await call(target, targetToken, 'GET', path), path).toEqual(
        expected(await call(source, sourceToken, 'GET', path)),
      );
    }
    // Services come back disabled until their secrets are entered again; the rest is the same.
    const services = (await call(target, targetToken, 'GET', '/services')) as unknown as Record<string, unknown>[];
    expect(services.map((s) => s.enabled)).toEqual([false, false]);
    // The webhook says which secret it needs again (docs/api.md "Changing a service").
    expect(services.map((s) => s.missing_secrets)).toEqual([['secret'], undefined]);
    const sourceServices = (await call(source, sourceToken, 'GET', '/services')) as unknown as Record<
      string,
      unknown
    >[];
    expect(services.map(({ missing_secrets: _missing, ...s }) => ({ ...s, enabled: true }))).toEqual(
      rename(expected(sourceServices)),
    );
    // The post whose id was taken kept its media and its delivery, under their new ids.
    const moved = (await list(target, targetToken, 'posts')).find((p) => p.text === 'public post with a photo')!;
    expect(moved.id).toBe(renamed.get(squatted.post));
    expect((moved.media_ids as string[])[0]).toBe(renamed.get(squatted.medium));
    expect(moved.deliveries).toEqual([
      {
        service_id: renamed.get(squatted.service),
        status: 'delivered',
        attempts: 1,
        remote_url: 'https://hook.example/posts/1',
        remote_id: 'at://did:plc:mover/app.bsky.feed.post/3k',
        last_error: null,
        // An edit's state is not part of the archive: a restored delivery was never edited.
        edit_status: null,
        edit_error: null,
        updated_at: 1_700_000_000,
      },
    ]);
  });

  it('serves the restored files byte for byte, with thumbnails', async () => {
    for (const medium of await list(source, sourceToken, 'media')) {
      const id =
        medium.id === squatted.medium ? derivedId(targetUserId, 'media', squatted.medium, 0) : (medium.id as string);
      const auth = (token: string) => ({ authorization: `Bearer ${token}` });
      const before = await source.app.inject({
        url: `/media/id/${medium.id as string}/file`,
        headers: auth(sourceToken),
      });
      const after = await target.app.inject({ url: `/media/id/${id}/file`, headers: auth(targetToken) });
      expect(after.statusCode).toBe(200);
      expect(after.rawPayload.equals(before.rawPayload)).toBe(true);
      const thumbnail = await target.app.inject({ url: `/media/id/${id}/thumbnail`, headers: auth(targetToken) });
      expect(thumbnail.statusCode).toBe(200);
    }
  });

  it('gives trackers no ingest token and keeps no secret', async () => {
    const rows = await target.database.db
      .selectFrom('services')
      .select(['type', 'ingest_token_hash', 'config'])
      .where('user_id', '=', targetUserId)
      .orderBy('type')
      .execute();
    expect(rows.map((r) => [r.type, r.ingest_token_hash])).toEqual([
      ['owntracks', null],
      ['webhook', null],
    ]);
    expect(rows.map((r) => r.config).join()).not.toContain('redacted');
  });

  it('a second restore of the same archive adds nothing', async () => {
    const tables = [
      'posts',
      'media',
      'locations',
      'views',
      'services',
      'service_groups',
      'service_group_members',
      'deliveries',
    ];
    const counts = async () => Promise.all(tables.map((table) => countRows(target.database, table)));
    const before = await counts();
    const again = await restore(archive, 'again.zip');
    expect(again.status).toBe('done');
    expect(again.errors).toEqual([]);
    expect(again.items).toEqual({
      settings: { seen: 1, stored: 1, duplicates: 0, skipped: 0 },
      services: { seen: 2, stored: 0, duplicates: 2, skipped: 0 },
      groups: { seen: 2, stored: 0, duplicates: 2, skipped: 0 },
      views: { seen: 2, stored: 0, duplicates: 2, skipped: 0 },
      places: { seen: 0, stored: 0, duplicates: 0, skipped: 0 },
      visit_corrections: { seen: 0, stored: 0, duplicates: 0, skipped: 0 },
      media: { seen: 3, stored: 0, duplicates: 3, skipped: 0 },
      posts: { seen: 3, stored: 0, duplicates: 3, skipped: 0 },
    });
    expect([again.points_seen, again.points_stored, again.duplicates]).toEqual([3, 0, 3]);
    expect(await counts()).toEqual(before);
  });
});

describe('permissions', () => {
  it('a restore needs what writing each kind of object needs: write_locations alone is 401, and nothing is kept', async () => {
    const person = await createTestUser(target.database, { username: 'limited' });
    const token = await tokenFor(target, person, ['write_locations']);
    const imports = await countRows(target.database, 'imports');
    const response = await uploadImport(target, token, archive, 'export.zip');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="waypost", error="insufficient_scope", scope="create_post"',
    );
    expect(await countRows(target.database, 'imports')).toBe(imports);
    expect(await importFileNames(target)).toEqual([]);
  });
});

describe('a worker killed mid-restore', () => {
  it('restarts from the checkpoint: every object is restored once and the counters are exact', async () => {
    const person = await createTestUser(target.database, { username: 'resumer' });
    const token = await tokenFor(target, person, [...ALL]);
    const upload = await uploadImport(target, token, archive, 'export.zip');
    expect(upload.statusCode).toBe(202);
    let batches = 0;
    media ??= lazyMedia(target.config);
    const worker = importWorker(target, {
      restore: restoreDeps(target.config, media),
      batchRecords: 1,
      onBatch: () => {
        batches += 1;
        // The batch is committed, then the process "dies": the job fails and is tried again.
        if (batches === 5 || batches === 11) throw new Error('killed');
      },
    });
    await drain(worker);
    // Both crashes happened, and the runs after them went on to the end.
    expect(batches).toBeGreaterThan(11);
    const done = (await call(
      target,
      token,
      'GET',
      `/imports/${upload.json<{ id: string }>().id}`,
    )) as unknown as Import;
    expect(done.status).toBe('done');
    expect(done.errors).toEqual([]);
    expect(done.items).toEqual({
      settings: { seen: 1, stored: 1, duplicates: 0, skipped: 0 },
      services: { seen: 2, stored: 2, duplicates: 0, skipped: 0 },
      groups: { seen: 2, stored: 2, duplicates: 0, skipped: 0 },
      views: { seen: 2, stored: 2, duplicates: 0, skipped: 0 },
      places: { seen: 0, stored: 0, duplicates: 0, skipped: 0 },
      visit_corrections: { seen: 0, stored: 0, duplicates: 0, skipped: 0 },
      media: { seen: 3, stored: 3, duplicates: 0, skipped: 0 },
      posts: { seen: 3, stored: 3, duplicates: 0, skipped: 0 },
    });
    expect([done.points_seen, done.points_stored, done.duplicates, done.skipped]).toEqual([3, 3, 0, 0]);
    const owned = (table: 'posts' | 'media' | 'locations' | 'views' | 'services' | 'service_groups') =>
      target.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', person.id)
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.n));
    expect(
      await Promise.all((['posts', 'media', 'locations', 'views', 'services', 'service_groups'] as const).map(owned)),
    ).toEqual([3, 3, 3, 2, 2, 2]);
    // The posts name the media and services of this account, restored under ids of its own.
    const posts = await list(target, token, 'posts');
    const mediaIds = new Set((await list(target, token, 'media')).map((m) => m.id));
    expect(posts.flatMap((p) => p.media_ids as string[]).every((id) => mediaIds.has(id))).toBe(true);
    expect(posts.flatMap((p) => p.media_ids as string[])).toHaveLength(3);
  });
});

describe('an untrusted archive', () => {
  const readme = 'format: waypost-export\nversion: 1\nusername: x\n\n';
  const post = (id: string, text: string) =>
    JSON.stringify({
      id,
      text,
      scope: 'private',
      time: 1_650_000_000,
      created_at: 1_650_000_000,
      media_ids: [],
      location: null,
      source: null,
    });

  it('reports bad JSON lines, invalid records and unsafe names, and restores the rest', async () => {
    const before = await countRows(target.database, 'posts');
    const done = await restore(
      makeZip([
        { name: 'README.txt', data: readme },
        { name: '../../etc/evil.txt', data: 'x' },
        {
          name: 'posts.jsonl',
          data: [post('01HZZZZZZZZZZZZZZZZZZZZZZ1', 'good one'), '{"id": "broken', post('bad id!', 'x'), ''].join('\n'),
        },
        { name: 'views.json', data: '{not json' },
      ]),
      'hostile.zip',
    );
    expect(done.status).toBe('done');
    expect(done.errors).toEqual([
      { where: '../../etc/evil.txt', message: 'has ".." in its path (path traversal); not read' },
      {
        where: 'views.json',
        message: expect.stringMatching(/^is not valid JSON \(.+\); nothing in it was restored$/) as unknown,
      },
      { where: 'posts.jsonl line 2', message: expect.stringMatching(/^is not valid JSON \(/) as unknown },
      { where: 'posts.jsonl line 3', message: expect.stringMatching(/^\/id /) as unknown },
    ]);
    expect(done.items?.posts).toEqual({ seen: 3, stored: 1, duplicates: 0, skipped: 2 });
    expect(await countRows(target.database, 'posts')).toBe(before + 1);
  });

  it('refuses a highly compressed file (a zip bomb) and a medium whose bytes do not match its hash', async () => {
    const before = await countRows(target.database, 'media');
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const wrongHash = 'a'.repeat(64);
    const medium = {
      id: '01HZZZZZZZZZZZZZZZZZZZZZM1',
      scope: 'private',
      kind: 'image',
      mime_type: 'image/png',
      size: png.length,
      sha256: wrongHash,
      width: 4,
      height: 4,
      duration: null,
      time: 1_650_000_000,
      location: null,
      caption: '',
      created_at: 1_650_000_000,
      file: `media/${wrongHash}.png`,
    };
    const done = await restore(
      makeZip([
        { name: 'README.txt', data: readme },
        { name: 'media.jsonl', data: `${JSON.stringify(medium)}\n` },
        { name: `media/${wrongHash}.png`, data: png, stored: true },
        { name: 'posts.jsonl', data: '\n'.repeat(5 * 1024 * 1024) },
      ]),
      'bomb.zip',
    );
    expect(done.status).toBe('done');
    expect(done.errors).toEqual([
      { where: 'media.jsonl line 1', message: 'its file does not have the sha256 it names' },
      { where: 'posts.jsonl', message: expect.stringMatching(/compressed more than 200 to 1/) as unknown },
    ]);
    expect(await countRows(target.database, 'media')).toBe(before);
  });

  it('refuses an archive of another format version, restoring nothing', async () => {
    const before = await countRows(target.database, 'posts');
    const done = await restore(
      makeZip([
        { name: 'README.txt', data: 'format: waypost-export\nversion: 9\n' },
        { name: 'posts.jsonl', data: `${post('01HZZZZZZZZZZZZZZZZZZZZZZ9', 'future')}\n` },
      ]),
      'future.zip',
      { format: 'waypost-export' },
    );
    expect(done.errors).toEqual([
      {
        where: 'README.txt',
        message: 'names export format version "9"; this server reads version 1; nothing was restored',
      },
    ]);
    expect(await countRows(target.database, 'posts')).toBe(before);
  });
});
