// The bluesky connector against a real PDS on loopback: the AT Protocol team's own test
// environment (@atproto/dev-env), which validates every record against the lexicons, checks
// tokens and stores blobs as the production server does.
import { createHmac } from 'node:crypto';
import { AtpAgent } from '@atproto/api';
import { TestNetworkNoAppView } from '@atproto/dev-env';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../job-runner.ts';
import { createOutbound, type Outbound } from '../lib/ssrf.ts';
import { bluesky } from './connectors/bluesky.ts';
import { graphemeLength } from './connectors/text.ts';
import { openState, secretsKey, sealState } from './secrets.ts';
import { setServiceState } from './services.repo.ts';

// dev-env signs access tokens with this secret (its `JWT_SECRET`).
const PDS_JWT_SECRET = 'jwt-secret';
const TID = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

let network: TestNetworkNoAppView;
let t: TestApp;
let alice: { id: string; username: string };
let token: string;
let did: string;
let bobDid: string;
let appPassword: string;
let pds: AtpAgent;
const runners: JobRunner[] = [];
/** Every XRPC method the connector called, in order. */
let calls: string[] = [];
let outbound: Outbound;

beforeAll(async () => {
  network = await TestNetworkNoAppView.create({});
  pds = new AtpAgent({ service: network.pds.url });
  const bob = new AtpAgent({ service: network.pds.url });
  bobDid = (await bob.createAccount({ handle: 'bob.test', email: 'bob@bob.test', password: 'bob-password' })).data.did;
  did = (await pds.createAccount({ handle: 'alice.test', email: 'alice@alice.test', password: 'main-password' })).data
    .did;
  appPassword = (await pds.com.atproto.server.createAppPassword({ name: 'waypost' })).data.password;
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
  const real = createOutbound({ allow: t.config.outboundAllow });
  outbound = {
    request: (url, init) => {
      calls.push(new URL(url).pathname.replace('/xrpc/', ''));
      return real.request(url, init);
    },
    close: () => real.close(),
  };
}, 60_000);
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
  calls = [];
});
afterAll(async () => {
  await outbound.close();
  await t.close();
  await network.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });

async function blueskyService(password = appPassword): Promise<{ serviceId: string; groupId: string }> {
  const service = await t.app.inject({
    method: 'POST',
    url: '/services',
    headers: auth(),
    payload: {
      type: 'bluesky',
      name: 'Bluesky',
      config: { handle: '@alice.test', app_password: password, service_url: network.pds.url },
    },
  });
  expect(service.statusCode).toBe(201);
  const serviceId = service.json<{ id: string }>().id;
  const group = await t.app.inject({
    method: 'POST',
    url: '/services/groups',
    headers: auth(),
    payload: { name: 'sky', service_ids: [serviceId] },
  });
  return { serviceId, groupId: group.json<{ id: string }>().id };
}

interface Delivery {
  status: string;
  remote_url: string | null;
  remote_id: string | null;
  last_error: string | null;
}

async function postAndDeliver(body: Record<string, unknown>): Promise<{ id: string; delivery: Delivery }> {
  const created = await t.app.inject({ method: 'POST', url: '/posts', headers: auth(), payload: body });
  expect(created.statusCode).toBe(202);
  const id = created.json<{ id: string }>().id;
  const runner = createJobRunner({ config: t.config, database: t.database, outbound });
  runners.push(runner);
  while ((await runner.worker.runOnce()) > 0) {
    // until the queue is empty
  }
  const read = await t.app.inject({ method: 'GET', url: `/posts/id/${id}`, headers: auth() });
  const [delivery] = read.json<{ deliveries: Delivery[] }>().deliveries;
  if (!delivery) throw new Error('no delivery');
  return { id, delivery };
}

async function recordOf(uri: string) {
  const rkey = uri.split('/').pop() ?? '';
  const { data } = await pds.com.atproto.repo.getRecord({ repo: did, collection: 'app.bsky.feed.post', rkey });
  return data.value as {
    text: string;
    facets?: { index: { byteStart: number; byteEnd: number }; features: Record<string, string>[] }[];
    embed?: {
      $type: string;
      images: { alt: string; aspectRatio?: unknown; image: { mimeType: string; size: number; ref: unknown } }[];
    };
  };
}

describe('publishing to a PDS', () => {
  it('creates an app.bsky.feed.post with link and mention facets and the images, resized to the blob limit', async () => {
    const { groupId } = await blueskyService();
    // Noise does not compress: as a PNG it is far over 1,000,000 bytes.
    let seed = 2463534242;
    const noise = Buffer.alloc(1200 * 900 * 3);
    for (let i = 0; i < noise.length; i += 1) {
      // xorshift32: the same noise every run
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      noise[i] = seed & 0xff;
    }
    const big = await sharp(noise, { raw: { width: 1200, height: 900, channels: 3 } })
      .png()
      .toBuffer();
    expect(big.byteLength).toBeGreaterThan(1_000_000);
    const upload = await uploadMedium(t, token, big, 'big.png', 'image/png', { scope: 'public', caption: 'Static' });
    const mediumId = upload.json<{ id: string }>().id;
    const text = 'Hello @bob.test and @nobody.test, see https://example.com/page';

    const { delivery } = await postAndDeliver({ text, groups: [groupId], media_ids: [mediumId] });

    expect(delivery.status).toBe('delivered');
    const rkey = delivery.remote_id?.split('/').pop() ?? '';
    expect(rkey).toMatch(TID);
    expect(delivery.remote_id).toBe(`at://${did}/app.bsky.feed.post/${rkey}`);
    expect(delivery.remote_url).toBe(`https://bsky.app/profile/${did}/post/${rkey}`);
    const record = await recordOf(delivery.remote_id ?? '');
    expect(record.text).toBe(text);
    const bytes = Buffer.from(text);
    expect(
      record.facets?.map((facet) => ({
        text: bytes.subarray(facet.index.byteStart, facet.index.byteEnd).toString(),
        features: facet.features,
      })),
    ).toEqual([
      { text: '@bob.test', features: [{ $type: 'app.bsky.richtext.facet#mention', did: bobDid }] },
      {
        text: 'https://example.com/page',
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/page' }],
      },
    ]);
    const [image] = record.embed?.images ?? [];
    expect(record.embed?.$type).toBe('app.bsky.embed.images');
    expect(record.embed?.images).toHaveLength(1);
    expect(image?.alt).toBe('Static');
    expect(image?.image.mimeType).toBe('image/jpeg');
    expect(image?.image.size).toBeLessThanOrEqual(1_000_000);
    expect(image?.aspectRatio).toEqual({ width: 1200, height: 900 });
    expect(calls).toEqual([
      'com.atproto.server.createSession',
      'com.atproto.identity.resolveHandle',
      'com.atproto.identity.resolveHandle',
      'com.atproto.repo.uploadBlob',
      'com.atproto.repo.createRecord',
    ]);
  });

  it("sends at most four images, in the post's order, each with its caption as alt text", async () => {
    const { groupId } = await blueskyService();
    const ids: string[] = [];
    for (const [index, colour] of ['#111111', '#222222', '#333333', '#444444', '#555555'].entries()) {
      const file = await sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
        .jpeg()
        .toBuffer();
      const upload = await uploadMedium(t, token, file, 'p.jpg', 'image/jpeg', {
        scope: 'public',
        caption: `n${index}`,
      });
      ids.push(upload.json<{ id: string }>().id);
    }

    const { delivery } = await postAndDeliver({ text: 'Five photos', groups: [groupId], media_ids: ids });

    const record = await recordOf(delivery.remote_id ?? '');
    expect(record.embed?.images.map((image) => [image.alt, image.aspectRatio])).toEqual([
      ['n0', { width: 40, height: 30 }],
      ['n1', { width: 40, height: 30 }],
      ['n2', { width: 40, height: 30 }],
      ['n3', { width: 40, height: 30 }],
    ]);
    expect(calls.filter((call) => call === 'com.atproto.repo.uploadBlob')).toHaveLength(4);
  });

  it('shortens text over 300 graphemes at a word boundary, with a link to the public page', async () => {
    const { groupId } = await blueskyService();
    const text = `${'Family 👨‍👩‍👧 picnic by the lake. '.repeat(14)}The end.`;
    expect(graphemeLength(text)).toBeGreaterThan(300);

    const { id, delivery } = await postAndDeliver({ text, groups: [groupId] });

    const record = await recordOf(delivery.remote_id ?? '');
    const page = `http://waypost.test/@${alice.username}/${id}`;
    // The most words that fit with "… <page>" within 300 graphemes.
    const words = text.split(' ');
    const cut = (count: number) => `${words.slice(0, count).join(' ')}… ${page}`;
    let fitting = 0;
    while (graphemeLength(cut(fitting + 1)) <= 300) fitting += 1;
    expect(fitting).toBeGreaterThan(10);
    expect(record.text).toBe(cut(fitting));
    expect(record.facets?.at(-1)?.features).toEqual([{ $type: 'app.bsky.richtext.facet#link', uri: page }]);
  });

  it('keeps the session sealed between deliveries and does not sign in again', async () => {
    const { serviceId, groupId } = await blueskyService();
    await postAndDeliver({ text: 'first', groups: [groupId] });
    calls = [];

    const { delivery } = await postAndDeliver({ text: 'second', groups: [groupId] });

    expect(delivery.status).toBe('delivered');
    expect(calls).toEqual(['com.atproto.repo.createRecord']);
    const row = await t.database.db
      .selectFrom('services')
      .select('state')
      .where('id', '=', serviceId)
      .executeTakeFirst();
    expect(row?.state).toMatch(/^v1\./);
    expect(row?.state).not.toContain('eyJ'); // no JWT in the clear
  });

  it('refreshes an expired access token with refreshSession, not createSession', async () => {
    const { serviceId, groupId } = await blueskyService();
    await postAndDeliver({ text: 'to get a session', groups: [groupId] });
    const row = await t.database.db
      .selectFrom('services')
      .select('state')
      .where('id', '=', serviceId)
      .executeTakeFirst();
    const key = secretsKey(t.config.secretKey);
    const session = JSON.parse(openState(key, serviceId, row?.state) ?? '{}') as { accessJwt: string };
    await setServiceState(
      t.database.db,
      serviceId,
      sealState(key, serviceId, JSON.stringify({ ...session, accessJwt: expired(session.accessJwt) })),
    );
    calls = [];

    const { delivery } = await postAndDeliver({ text: 'after expiry', groups: [groupId] });

    expect(delivery.status).toBe('delivered');
    expect(calls).toEqual([
      'com.atproto.repo.createRecord',
      'com.atproto.server.refreshSession',
      'com.atproto.server.getSession',
      'com.atproto.repo.createRecord',
    ]);
  });

  it('signs in again when the saved session is refused outright', async () => {
    const { serviceId, groupId } = await blueskyService();
    const key = secretsKey(t.config.secretKey);
    const bogus = { did, handle: 'alice.test', accessJwt: 'not-a-token', refreshJwt: 'not-a-token', active: true };
    await setServiceState(t.database.db, serviceId, sealState(key, serviceId, JSON.stringify(bogus)));

    const { delivery } = await postAndDeliver({ text: 'fresh start', groups: [groupId] });

    expect(delivery.status).toBe('delivered');
    expect(calls).toEqual([
      'com.atproto.repo.createRecord',
      'com.atproto.server.createSession',
      'com.atproto.repo.createRecord',
    ]);
  });

  it('a second attempt of one delivery finds the record the first made instead of posting twice', async () => {
    let saved: string | null = null;
    const request = {
      post: {
        id: '01KAB0000000000000000000AA',
        username: alice.username,
        text: 'Only once, please',
        scope: 'public' as const,
        time: 1_700_000_000.25,
        created_at: 1_700_000_000.25,
        url: 'http://waypost.test/posts/id/01KAB0000000000000000000AA',
        media_ids: [],
        location: null,
      },
      media: [],
      pageUrl: `http://waypost.test/@${alice.username}/01KAB0000000000000000000AA`,
      serviceId: 'service-1',
      config: { handle: 'alice.test', service_url: network.pds.url },
      secrets: { app_password: appPassword },
      state: {
        get value() {
          return saved;
        },
        save: (value: string | null) => {
          saved = value;
          return Promise.resolve();
        },
      },
      deliveryId: 'delivery-1',
      outbound,
      now: Date.now,
    };
    const publish = bluesky.publish?.bind(bluesky);
    if (!publish) throw new Error('bluesky publishes');

    const first = await publish(request);
    const second = await publish(request);

    expect(second).toEqual(first);
    const { data } = await pds.com.atproto.repo.listRecords({
      repo: did,
      collection: 'app.bsky.feed.post',
      limit: 100,
    });
    const texts = data.records.map((record) => (record.value as { text: string }).text);
    expect(texts.filter((text) => text === 'Only once, please')).toHaveLength(1);
  });

  it('fails for good with a wrong app password, saying so', async () => {
    const { groupId } = await blueskyService('wrong-wrong-wrong-wrong');
    const { delivery } = await postAndDeliver({ text: 'nope', groups: [groupId] });
    expect(delivery).toMatchObject({
      status: 'failed',
      remote_url: null,
      last_error: 'the server refused the handle and app password',
    });
  });

  it('never sends a private post (Bluesky has no private posts)', async () => {
    const { groupId } = await blueskyService();
    const { delivery } = await postAndDeliver({ text: 'only mine', groups: [groupId], scope: 'private' });
    expect(delivery).toMatchObject({
      status: 'failed',
      last_error: 'Bluesky posts are all public, so a private post is not sent there',
    });
    expect(calls).toEqual([]);
  });
});

describe('POST /services/<id>/test for bluesky', () => {
  it('signs in with createSession: 200 ok with the handle and DID', async () => {
    const { serviceId } = await blueskyService();
    const response = await t.app.inject({ method: 'POST', url: `/services/${serviceId}/test`, headers: auth() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true, status: 200, detail: `Signed in as @alice.test (${did}).` });
  });

  it('a wrong app password: 200 with ok false and the server status', async () => {
    const { serviceId } = await blueskyService('wrong-wrong-wrong-wrong');
    const response = await t.app.inject({ method: 'POST', url: `/services/${serviceId}/test`, headers: auth() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      ok: false,
      status: 401,
      detail: 'AuthenticationRequired: Invalid identifier or password',
    });
  });
});

/** The same token with its expiry an hour ago, signed again with the PDS's key. */
function expired(jwt: string): string {
  const [header = '', payload = ''] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { exp: number; iat: number };
  const past = Math.floor(Date.now() / 1000) - 3600;
  const body = Buffer.from(JSON.stringify({ ...claims, iat: past - 60, exp: past })).toString('base64url');
  const signature = createHmac('sha256', PDS_JWT_SECRET).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${signature}`;
}
