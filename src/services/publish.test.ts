// Posts going out with their media and within each target's length limit: Mastodon, Micropub
// (with and without a media endpoint) and webhooks against loopback servers that speak their
// protocols (test/protocols.ts). A private medium is never sent anywhere.
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { startMastodon, startMicropub, type FakeMastodon, type FakeMicropub } from '../../test/protocols.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../job-runner.ts';
import { mediaPolling } from './connectors/mastodon.ts';
import { mastodonLength } from './connectors/text.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const MASTODON_TOKEN = 'mastodon-token-1';
const MICROPUB_TOKEN = 'micropub-token-1';
let t: TestApp;
let alice: { id: string; username: string };
let token: string;
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  alice = await createTestUser(t.database);
  token = await tokenFor(t, alice, [
    'create_service',
    'manage_groups',
    'create_post',
    'upload_media',
    'get_services',
    'get_private_scope',
  ]);
  mediaPolling.firstDelayMs = 10; // the fake answers at once: no need to wait long between polls
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});
afterAll(() => t.close());

const auth = () => ({ authorization: `Bearer ${token}` });

function track<T extends { close(): Promise<void> }>(thing: T): T {
  closers.push(thing);
  return thing;
}

/** A JPEG with EXIF (camera, time, GPS), as a phone writes it. */
function photo(colour: string) {
  return sharp({ create: { width: 400, height: 300, channels: 3, background: colour } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'Waypost', Model: 'Test camera' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '52/1 31/1 12/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '13/1 24/1 18/1',
      },
    })
    .toBuffer();
}

async function medium(colour: string, fields: Record<string, string>): Promise<string> {
  const response = await uploadMedium(t, token, await photo(colour), 'p.jpg', 'image/jpeg', fields);
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

async function service(type: string, config: Record<string, string>): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/services',
    headers: auth(),
    payload: { type, name: type, config },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

async function group(serviceIds: string[]): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/services/groups',
    headers: auth(),
    payload: { name: 'out', service_ids: serviceIds },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

interface PostAnswer {
  id: string;
  deliveries: { service_id: string; status: string; remote_url: string | null; remote_id: string | null }[];
}

async function post(body: Record<string, unknown>): Promise<PostAnswer> {
  const response = await t.app.inject({ method: 'POST', url: '/posts', headers: auth(), payload: body });
  expect(response.statusCode).toBe(202);
  return response.json<PostAnswer>();
}

/** Runs every queued job once, then answers the post as its owner sees it. */
async function deliver(postId: string): Promise<PostAnswer> {
  const runner: JobRunner = track(createJobRunner({ config: t.config, database: t.database }));
  while ((await runner.worker.runOnce()) > 0) {
    // until the queue is empty
  }
  const response = await t.app.inject({ method: 'GET', url: `/posts/id/${postId}`, headers: auth() });
  return response.json<PostAnswer>();
}

const pageOf = (postId: string) => `http://waypost.test/@${alice.username}/${postId}`;
const fileOf = (mediumId: string) => `http://waypost.test/media/id/${mediumId}/file`;

describe('mastodon', () => {
  let mastodon: FakeMastodon;
  beforeAll(async () => {
    mastodon = await startMastodon(MASTODON_TOKEN, { maxCharacters: 120 });
  });
  afterAll(() => mastodon.close());

  it('uploads each medium with its caption, waits for processing, attaches them in order, and fits the text to the instance limit', async () => {
    const serviceId = await service('mastodon', { instance_url: mastodon.url, access_token: MASTODON_TOKEN });
    const groupId = await group([serviceId]);
    const first = await medium('#3366cc', { scope: 'public', caption: 'A blue wall' });
    const second = await medium('#cc6633', { scope: 'public', caption: '' });
    const text = `${'Walking along the river in the morning light, '.repeat(4)}the end.`;
    const created = await post({ text, groups: [groupId], scope: 'public', media_ids: [first, second] });

    const delivered = await deliver(created.id);

    expect(mastodon.uploads.map((u) => ({ description: u.description, type: u.type }))).toEqual([
      { description: 'A blue wall', type: 'image/jpeg' },
      { description: undefined, type: 'image/jpeg' },
    ]);
    // The public copies: no camera, no time, no place.
    for (const upload of mastodon.uploads) expect((await sharp(upload.bytes).metadata()).exif).toBeUndefined();
    // Each upload was polled: 206 once, then 200 (GET /api/v1/media/:id).
    const polls = mastodon.receiver.received.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/media/'));
    expect(polls.map((r) => r.path)).toEqual([
      '/api/v1/media/100',
      '/api/v1/media/100',
      '/api/v1/media/101',
      '/api/v1/media/101',
    ]);
    expect(mastodon.statuses).toHaveLength(1);
    const [status] = mastodon.statuses as { status: string; media_ids: string[]; visibility: string }[];
    expect(status?.media_ids).toEqual(['100', '101']);
    expect(status?.visibility).toBe('public');
    expect(status?.status).toBe(
      `Walking along the river in the morning light, Walking along the river in the morning light,… ${pageOf(created.id)}`,
    );
    expect(mastodonLength(status?.status ?? '')).toBeLessThanOrEqual(120);
    expect(delivered.deliveries).toMatchObject([
      { service_id: serviceId, status: 'delivered', remote_url: `${mastodon.url}/@alice/1001`, remote_id: '1001' },
    ]);
  });

  it('asks the instance for its limits once, then uses what it learned', async () => {
    const serviceId = await service('mastodon', { instance_url: mastodon.url, access_token: MASTODON_TOKEN });
    const groupId = await group([serviceId]);
    const before = mastodon.receiver.received.length;
    await deliver((await post({ text: 'one', groups: [groupId] })).id);
    await deliver((await post({ text: 'two', groups: [groupId] })).id);
    const asked = mastodon.receiver.received.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(asked).toEqual(['GET /api/v2/instance', 'POST /api/v1/statuses', 'POST /api/v1/statuses']);
  });
});

describe('micropub', () => {
  it('sends each file to the media endpoint that q=config names, then creates the entry in JSON with alt text', async () => {
    const site: FakeMicropub = track(await startMicropub(MICROPUB_TOKEN, { mediaEndpoint: true }));
    const serviceId = await service('micropub', { endpoint: site.endpoint, access_token: MICROPUB_TOKEN });
    const mediumId = await medium('#22aa22', { scope: 'public', caption: 'Green' });
    const created = await post({ text: 'With a photo', groups: [await group([serviceId])], media_ids: [mediumId] });

    const delivered = await deliver(created.id);

    expect(site.files).toHaveLength(1);
    expect(site.files[0]?.type).toBe('image/jpeg');
    expect((await sharp(site.files[0]?.bytes).metadata()).exif).toBeUndefined();
    expect(site.entries).toEqual([
      {
        syntax: 'json',
        body: {
          type: ['h-entry'],
          properties: {
            content: ['With a photo'],
            published: [expect.stringMatching(/^\d{4}-\d\d-\d\dT/)],
            photo: [{ value: `${site.receiver.url}/files/1`, alt: 'Green' }],
          },
        },
      },
    ]);
    expect(delivered.deliveries[0]).toMatchObject({
      status: 'delivered',
      remote_url: `${site.receiver.url}/entries/1`,
    });
  });

  it('without a media endpoint, sends the URLs of the public copies, which anyone can fetch without metadata', async () => {
    const site: FakeMicropub = track(await startMicropub(MICROPUB_TOKEN, { mediaEndpoint: false }));
    const serviceId = await service('micropub', { endpoint: site.endpoint, access_token: MICROPUB_TOKEN });
    const mediumId = await medium('#aa2222', { scope: 'public', caption: '' });
    const created = await post({ text: 'Red', groups: [await group([serviceId])], media_ids: [mediumId] });

    await deliver(created.id);

    expect(site.files).toEqual([]);
    expect(site.entries.map((e) => (e.body as { properties: { photo: unknown } }).properties.photo)).toEqual([
      [fileOf(mediumId)],
    ]);
    const file = await t.app.inject({ method: 'GET', url: `/media/id/${mediumId}/file` });
    expect(file.statusCode).toBe(200);
    expect((await sharp(file.rawPayload).metadata()).exif).toBeUndefined();
  });
});

describe('webhook', () => {
  it('carries the URLs of the public copies with their captions and sizes', async () => {
    const target: Receiver = track(await startReceiver());
    const serviceId = await service('webhook', { url: `${target.url}/in`, secret: SECRET });
    const mediumId = await medium('#123456', { scope: 'public', caption: 'Dark blue' });
    const created = await post({ text: 'Hooked', groups: [await group([serviceId])], media_ids: [mediumId] });

    await deliver(created.id);

    const [request] = target.received;
    const event = new Webhook(SECRET).verify(request?.body ?? '', request?.headers as Record<string, string>) as {
      data: { media_ids: string[]; media: unknown[] };
    };
    expect(event.data.media_ids).toEqual([mediumId]);
    expect(event.data.media).toEqual([
      {
        id: mediumId,
        kind: 'image',
        mime_type: 'image/jpeg',
        url: fileOf(mediumId),
        caption: 'Dark blue',
        width: 400,
        height: 300,
      },
    ]);
  });
});

describe('a private medium', () => {
  it('is never sent anywhere: not to a webhook, not to Mastodon, not to a Micropub site', async () => {
    const hook: Receiver = track(await startReceiver());
    const mastodon = track(await startMastodon(MASTODON_TOKEN));
    const site = track(await startMicropub(MICROPUB_TOKEN, { mediaEndpoint: true }));
    const groupId = await group([
      await service('webhook', { url: `${hook.url}/in`, secret: SECRET }),
      await service('mastodon', { instance_url: mastodon.url, access_token: MASTODON_TOKEN }),
      await service('micropub', { endpoint: site.endpoint, access_token: MICROPUB_TOKEN }),
    ]);
    const shown = await medium('#0000ff', { scope: 'public', caption: 'shown' });
    const hidden = await medium('#ff0000', { scope: 'private', caption: 'hidden caption' });
    // A private post may hold a private medium; only the public one goes out.
    const created = await post({ text: 'Mixed', groups: [groupId], scope: 'private', media_ids: [hidden, shown] });

    const delivered = await deliver(created.id);

    expect(delivered.deliveries.map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(mastodon.uploads.map((u) => u.description)).toEqual(['shown']);
    expect(site.files).toHaveLength(1);
    const event = JSON.parse(hook.received[0]?.body ?? '{}') as {
      data: { media_ids: string[]; media: { id: string }[] };
    };
    expect(event.data.media_ids).toEqual([shown]);
    expect(event.data.media.map((m) => m.id)).toEqual([shown]);
    // Nothing any target received names the private medium or carries its caption.
    const everything = [hook, mastodon.receiver, site.receiver].flatMap((r) =>
      r.received.map((q) => q.raw.toString('latin1')),
    );
    expect(everything.filter((body) => body.includes(hidden) || body.includes('hidden caption'))).toEqual([]);
  });
});
