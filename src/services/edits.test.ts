// Editing a delivered post (docs/api.md "Deliveries"): the new text goes to Mastodon (PUT, media
// kept) and to a Micropub site (update), Bluesky-like services that take no edits say so, and a
// delivery not yet made sends the new text; against loopback servers (test/protocols.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { startMastodon, startMicropub, type FakeMastodon, type FakeMicropub } from '../../test/protocols.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner } from '../job-runner.ts';
import type { Post } from '../posts/posts.schemas.ts';
import { mediaPolling } from './connectors/mastodon.ts';

const MASTODON_TOKEN = 'mastodon-token-2';
const MICROPUB_TOKEN = 'micropub-token-2';
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
let t: TestApp;
let token: string;
let mastodon: FakeMastodon;
let micropub: FakeMicropub;
let hook: Receiver;

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  const alice = await createTestUser(t.database);
  token = await tokenFor(t, alice, [
    'create_service',
    'manage_groups',
    'create_post',
    'upload_media',
    'get_private_scope',
  ]);
  mediaPolling.firstDelayMs = 10;
  mastodon = await startMastodon(MASTODON_TOKEN, { maxCharacters: 500 });
  micropub = await startMicropub(MICROPUB_TOKEN, { mediaEndpoint: false });
  hook = await startReceiver();
});
afterAll(async () => {
  await Promise.all([mastodon?.close(), micropub?.close(), hook?.close()]);
  await t?.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
async function call<T>(method: 'GET' | 'POST', url: string, status: number, payload?: object): Promise<T> {
  const response = await t.app.inject({ method, url, headers: auth(), ...(payload ? { payload } : {}) });
  expect(response.statusCode).toBe(status);
  return response.json<T>();
}

async function runJobs() {
  const runner = createJobRunner({ config: t.config, database: t.database });
  try {
    while ((await runner.worker.runOnce()) > 0) {
      // until the queue is empty
    }
  } finally {
    await runner.close();
  }
}

const byService = (post: Post, id: string) => post.deliveries!.find((d) => d.service_id === id)!;

describe('editing a delivered post', () => {
  it('sends the new text to Mastodon (keeping its media) and Micropub, and says webhooks take no edits', async () => {
    const toMastodon = (
      await call<{ id: string }>('POST', '/services', 201, {
        type: 'mastodon',
        name: 'Mastodon',
        config: { instance_url: mastodon.url, access_token: MASTODON_TOKEN },
      })
    ).id;
    const toMicropub = (
      await call<{ id: string }>('POST', '/services', 201, {
        type: 'micropub',
        name: 'Blog',
        config: { endpoint: micropub.endpoint, access_token: MICROPUB_TOKEN },
      })
    ).id;
    const toHook = (
      await call<{ id: string }>('POST', '/services', 201, {
        type: 'webhook',
        name: 'Hook',
        config: { url: hook.url, secret: SECRET },
      })
    ).id;
    const group = await call<{ id: string }>('POST', '/services/groups', 201, {
      name: 'everywhere',
      service_ids: [toMastodon, toMicropub, toHook],
    });
    const upload = await uploadMedium(t, token, await gpsPhoto(), 'lake.jpg', 'image/jpeg', { scope: 'public' });
    expect(upload.statusCode).toBe(201);
    const post = await call<Post>('POST', '/posts', 202, {
      text: 'At the lake',
      scope: 'public',
      groups: [group.id],
      media_ids: [upload.json<{ id: string }>().id],
    });
    await runJobs();
    const sent = await call<Post>('GET', `/posts/id/${post.id}`, 200);
    expect(sent.deliveries!.map((d) => [d.status, d.edit_status])).toEqual([
      ['delivered', null],
      ['delivered', null],
      ['delivered', null],
    ]);
    const statusId = byService(sent, toMastodon).remote_id!;

    const edited = await call<Post>('POST', `/posts/id/${post.id}`, 200, { text: '  At the lake, at dawn  ' });
    expect(edited.text).toBe('At the lake, at dawn');
    expect(byService(edited, toMastodon).edit_status).toBe('pending');
    expect(byService(edited, toMicropub).edit_status).toBe('pending');
    expect(byService(edited, toHook).edit_status).toBe('unsupported');
    await runJobs();

    const after = await call<Post>('GET', `/posts/id/${post.id}`, 200);
    expect(after.deliveries!.map((d) => [d.service_id, d.edit_status, d.edit_error])).toEqual(
      [
        [toMastodon, 'delivered', null],
        [toMicropub, 'delivered', null],
        [toHook, 'unsupported', null],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(mastodon.edits[statusId]).toEqual([{ status: 'At the lake, at dawn', media_ids: ['100'] }]);
    expect(micropub.updates).toEqual([
      { url: byService(sent, toMicropub).remote_url, replace: { content: ['At the lake, at dawn'] } },
    ]);
    // The webhook got the post once, and nothing for the edit.
    expect(hook.received).toHaveLength(1);

    // The same text again changes nothing and sends nothing.
    await call<Post>('POST', `/posts/id/${post.id}`, 200, { text: 'At the lake, at dawn' });
    await runJobs();
    expect(mastodon.edits[statusId]).toHaveLength(1);
  });

  it('sends the new text with a delivery not yet made, and refuses an empty text', async () => {
    const toMastodon = (
      await call<{ id: string }>('POST', '/services', 201, {
        type: 'mastodon',
        name: 'Mastodon 2',
        config: { instance_url: mastodon.url, access_token: MASTODON_TOKEN },
      })
    ).id;
    const group = await call<{ id: string }>('POST', '/services/groups', 201, {
      name: 'mastodon only',
      service_ids: [toMastodon],
    });
    const post = await call<Post>('POST', '/posts', 202, { text: 'First words', scope: 'public', groups: [group.id] });
    const refused = await t.app.inject({
      method: 'POST',
      url: `/posts/id/${post.id}`,
      headers: auth(),
      payload: { text: '   ' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ errors: unknown[] }>().errors).toEqual([
      { path: 'body/text', message: 'must be 1 to 5000 characters after trimming' },
    ]);
    const edited = await call<Post>('POST', `/posts/id/${post.id}`, 200, { text: 'Better words' });
    expect(edited.deliveries!.map((d) => [d.status, d.edit_status])).toEqual([['pending', null]]);
    const before = mastodon.statuses.length;
    await runJobs();
    expect(mastodon.statuses.slice(before).map((s) => s.status)).toEqual(['Better words']);
  });
});
