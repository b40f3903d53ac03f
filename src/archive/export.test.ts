// GET /export: the archive read by yauzl (a ZIP reader no one here wrote), every JSON Lines
// record parsed on its own, every GeoJSON text checked by @placemarkio/check-geojson; every item
// of the person present with exact coordinates, nobody else's, and no secret in any file.
import { check } from '@placemarkio/check-geojson';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { readZip } from '../../test/zip.ts';

let t: TestApp;
let owner: Awaited<ReturnType<typeof createTestUser>>;
let other: Awaited<ReturnType<typeof createTestUser>>;
let exportToken: string;
const SECRET = `whsec_${Buffer.from('distinctive-webhook-secret-7f3a9c').toString('base64')}`;
const seeded = { posts: [] as string[], media: [] as string[], locations: [] as string[], otherItems: [] as string[] };
let files: Buffer[];

interface PointFeature {
  id: string;
  geometry: { coordinates: number[] };
}

async function seed() {
  const token = await tokenFor(t, owner, [
    'create_post',
    'upload_media',
    'write_locations',
    'get_private_scope',
    'manage_views',
    'get_views',
    'update_settings',
    'create_service',
    'manage_groups',
  ]);
  const auth = { authorization: `Bearer ${token}` };
  const inject = async (method: 'POST', url: string, payload: unknown) => {
    const response = await t.app.inject({ method, url, headers: auth, payload: payload as object });
    expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(300);
    return response.json<{ id: string }>();
  };
  const service = await inject('POST', '/services', {
    type: 'webhook',
    name: 'my hook',
    config: { url: 'https://hook.example/in', secret: SECRET },
  });
  const group = await inject('POST', '/services/groups', { name: 'everywhere', service_ids: [service.id] });
  await inject('POST', '/views', { name: 'walks', kinds: ['locations'], scope: 'private' });
  await inject('POST', '/settings', { timezone: 'Europe/Berlin', public_location_precision_m: 1000 });

  files = await Promise.all(
    ['#102030', '#405060'].map((colour) =>
      sharp({ create: { width: 12, height: 8, channels: 3, background: colour } })
        .png()
        .toBuffer(),
    ),
  );
  // The second file twice: two media, one file in the archive.
  for (const [file, scope] of [
    [files[0]!, 'public'],
    [files[1]!, 'private'],
    [files[1]!, 'public'],
  ] as const) {
    const response = await uploadMedium(t, token, file, 'x.png', 'image/png', { scope, caption: `caption ${scope}` });
    expect(response.statusCode).toBe(201);
    seeded.media.push(response.json<{ id: string }>().id);
  }
  seeded.posts.push(
    (
      await inject('POST', '/posts', {
        text: 'public post at an exact place',
        groups: [group.id],
        scope: 'public',
        location: { lat: 52.520008, lon: 13.404954 },
        media_ids: [seeded.media[0]],
      })
    ).id,
  );
  seeded.posts.push((await inject('POST', '/posts', { text: 'private thought', groups: [], scope: 'private' })).id);
  seeded.posts.push(
    ...(await insertItems(
      t.database,
      'posts',
      owner.id,
      Array.from({ length: 1200 }, () => ({})),
    )),
  );
  await inject('POST', '/locations', [
    { time: 1_700_000_000, lat: 52.520008, lon: 13.404954, alt: 34.5, scope: 'public' },
    { time: 1_700_000_060, lat: 52.521111, lon: 13.405555, scope: 'private' },
  ]);
  seeded.locations.push(
    ...(await t.database.db.selectFrom('locations').select('id').where('user_id', '=', owner.id).execute()).map(
      (row) => row.id,
    ),
  );
  seeded.locations.push(
    ...(await insertItems(
      t.database,
      'locations',
      owner.id,
      Array.from({ length: 2500 }, (_, i) => ({ scope: i % 2 ? 'private' : 'public', time: 1_600_000_000_000 + i })),
    )),
  );
  for (const kind of ['posts', 'media', 'locations'] as const) {
    seeded.otherItems.push(
      ...(await insertItems(t.database, kind, other.id, [{ scope: 'public' }, { scope: 'private' }])),
    );
  }
}

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createTestUser(t.database, { username: 'exporter' });
  other = await createTestUser(t.database);
  exportToken = await tokenFor(t, owner, ['export']);
  await seed();
}, 60_000);
afterAll(() => t.close());

const getExport = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/export', headers });

const lines = (bytes: Buffer) => {
  const text = bytes.toString('utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
};

describe('GET /export', () => {
  it('needs the export permission', async () => {
    const none = await getExport();
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="waypost"');
    const without = await getExport({ authorization: `Bearer ${await tokenFor(t, owner, ['get_private_scope'])}` });
    expect(without.statusCode).toBe(401);
    expect(without.headers['www-authenticate']).toBe(
      'Bearer realm="waypost", error="insufficient_scope", scope="export"',
    );
    expect(without.json()).toMatchObject({ status: 401, code: 'insufficient_scope' });
    const bad = await getExport({ authorization: 'Bearer not-a-token' });
    expect(bad.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('streams one ZIP of everything the person owns, each file in its format', async () => {
    const response = await getExport({ authorization: `Bearer ${exportToken}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="waypost-exporter-\d{4}-\d\d-\d\d\.zip"$/,
    );
    expect(response.headers['cache-control']).toBe('no-store');
    const zip = await readZip(response.rawPayload);
    const shas = files.map((file) => createHash('sha256').update(file).digest('hex'));
    expect([...zip.keys()].sort()).toEqual(
      [
        'README.txt',
        'settings.json',
        'services.json',
        'groups.json',
        'views.json',
        'places.json',
        'visit-corrections.json',
        'posts.jsonl',
        'media.jsonl',
        'locations.geojsonseq',
        ...shas.map((sha) => `media/${sha}.png`),
      ].sort(),
    );

    const readme = zip.get('README.txt')!.toString('utf8');
    expect(readme.split('\n').slice(0, 3)).toEqual(['format: waypost-export', 'version: 1', 'username: exporter']);
    for (const name of zip.keys()) if (!name.startsWith('media/')) expect(readme).toContain(name.split('/')[0]);

    const posts = lines(zip.get('posts.jsonl')!).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(posts.map((post) => post.id).sort()).toEqual([...seeded.posts].sort());
    const located = posts.find((post) => post.text === 'public post at an exact place')!;
    // The owner's view: exact coordinates although the public sees them rounded to 1 km, and deliveries.
    expect(located).toMatchObject({
      scope: 'public',
      location: { lat: 52.520008, lon: 13.404954 },
      media_ids: [seeded.media[0]],
      deliveries: [expect.objectContaining({ status: 'pending' })],
    });
    expect(posts.find((post) => post.text === 'private thought')).toMatchObject({ scope: 'private' });

    const media = lines(zip.get('media.jsonl')!).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(media.map((medium) => medium.id).sort()).toEqual([...seeded.media].sort());
    for (const medium of media) {
      const file = zip.get(medium.file as string)!;
      expect(createHash('sha256').update(file).digest('hex')).toBe(medium.sha256);
      expect(medium).toMatchObject({ username: 'exporter', mime_type: 'image/png' });
    }
    expect(zip.get(`media/${shas[1]}.png`)!.equals(files[1]!)).toBe(true);

    const sequence = zip.get('locations.geojsonseq')!.toString('utf8');
    const records = sequence.split('\u001e');
    expect(records[0]).toBe(''); // RFC 8142: every text begins with RS
    const features: PointFeature[] = [];
    for (const record of records.slice(1)) {
      expect(record.endsWith('\n')).toBe(true);
      // check() parses and validates RFC 7946, throwing on anything invalid.
      const feature = check(record.slice(0, -1)) as unknown as PointFeature;
      features.push(feature);
    }
    expect(features.map((feature) => feature.id).sort()).toEqual([...seeded.locations].sort());
    const exact = features.find((feature) => feature.geometry.coordinates[2] === 34.5)!;
    expect(exact.geometry.coordinates).toEqual([13.404954, 52.520008, 34.5]);

    expect(JSON.parse(zip.get('views.json')!.toString())).toEqual([
      expect.objectContaining({ name: 'walks', scope: 'private' }),
    ]);
    expect(JSON.parse(zip.get('settings.json')!.toString())).toMatchObject({
      timezone: 'Europe/Berlin',
      public_location_precision_m: 1000,
    });
    const [service] = JSON.parse(zip.get('services.json')!.toString()) as { config: Record<string, string> }[];
    expect(service!.config).toEqual({ url: 'https://hook.example/in', secret: '[redacted]' });
    expect(JSON.parse(zip.get('groups.json')!.toString())).toEqual([
      expect.objectContaining({ name: 'everywhere', service_ids: [expect.any(String)] }),
    ]);

    // No secret anywhere, in any form; no one else's item.
    const stored = await t.database.db
      .selectFrom('services')
      .select('secrets')
      .where('user_id', '=', owner.id)
      .execute();
    const needles = [SECRET, SECRET.slice(6), 'distinctive-webhook-secret', stored[0]!.secrets, ...seeded.otherItems];
    for (const [name, bytes] of zip) {
      const text = bytes.toString('latin1');
      for (const needle of needles) expect(text.includes(needle), `${needle} in ${name}`).toBe(false);
    }
  });

  it('also answers the signed-in browser of /account, but not a navigation from another site', async () => {
    const session = randomToken(32);
    const now = Date.now();
    await t.database.db
      .insertInto('web_sessions')
      .values({ user_id: owner.id, id_hash: sha256Hex(session), created_at: now, expires_at: now + 60_000 })
      .execute();
    const cookie = `wp_session=${session}`;
    const response = await getExport({ cookie });
    expect(response.statusCode).toBe(200);
    expect((await readZip(response.rawPayload)).has('posts.jsonl')).toBe(true);
    expect((await getExport({ cookie, 'sec-fetch-site': 'cross-site' })).statusCode).toBe(401);
    expect((await getExport({ cookie: 'wp_session=unknown' })).statusCode).toBe(401);
  });

  it('of a person with nothing is still a whole archive', async () => {
    const empty = await createTestUser(t.database);
    const response = await getExport({ authorization: `Bearer ${await tokenFor(t, empty, ['export'])}` });
    const zip = await readZip(response.rawPayload);
    expect(zip.get('posts.jsonl')!.length).toBe(0);
    expect(zip.get('locations.geojsonseq')!.length).toBe(0);
    expect(JSON.parse(zip.get('services.json')!.toString())).toEqual([]);
  });

  it('survives downloads that break off, and serves the next one whole', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const headers = { authorization: `Bearer ${exportToken}` };
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const response = await fetch(`${address}/export`, { headers, signal: controller.signal });
      expect(response.status).toBe(200);
      await response.body!.getReader().read();
      controller.abort();
    }
    const whole = await fetch(`${address}/export`, { headers });
    const zip = await readZip(Buffer.from(await whole.arrayBuffer()));
    expect(zip.get('locations.geojsonseq')!.toString().split('\u001e')).toHaveLength(seeded.locations.length + 1);
  });
});
