// Mastodon import against a small Mastodon on loopback that answers as docs.joinmastodon.org
// defines: verify_credentials, an account's statuses with since_id / max_id / limit /
// exclude_reblogs, and POST /api/v1/statuses with Idempotency-Key (for the echo rule).
import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../../test/helpers.ts';
import { startReceiver, type Received, type Receiver } from '../../../test/receivers.ts';
import { tokenFor } from '../../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../../job-runner.ts';

const MINUTE = 60_000;
const ACCOUNT = '109';
let t: TestApp;
let clock = Date.now();
let server: Receiver;
let png: Buffer;
const runners: JobRunner[] = [];

interface Status {
  id: string;
  uri: string;
  url: string;
  created_at: string;
  content: string;
  spoiler_text: string;
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
  reblog: unknown;
  in_reply_to_account_id: string | null;
  media_attachments: { id: string; type: string; url: string; description: string | null }[];
}

/** The fake server's statuses, newest first, and its next id. */
let statuses: Status[] = [];
let nextId = 1000;
const byKey = new Map<string, Status>();

function status(fields: Partial<Status> & { content: string }): Status {
  nextId += 1;
  const id = String(nextId);
  return {
    id,
    uri: `${server.url}/users/alice/statuses/${id}`,
    url: `${server.url}/@alice/${id}`,
    created_at: new Date(Date.UTC(2025, 0, 1, 0, nextId - 1000)).toISOString(),
    spoiler_text: '',
    visibility: 'public',
    reblog: null,
    in_reply_to_account_id: null,
    media_attachments: [],
    ...fields,
  };
}

function json(response: ServerResponse, code: number, body: unknown) {
  response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Mastodon ids compare as numbers. */
const after = (a: string, b: string) => BigInt(a) > BigInt(b);

function mastodon(request: Received, response: ServerResponse) {
  const url = new URL(request.path, server.url);
  if (url.pathname === '/media/photo.png') return response.writeHead(200, { 'content-type': 'image/png' }).end(png);
  if (request.headers.authorization !== 'Bearer masto-token')
    return json(response, 401, { error: 'The access token is invalid' });
  if (request.method === 'GET' && url.pathname === '/api/v1/accounts/verify_credentials') {
    return json(response, 200, { id: ACCOUNT, username: 'alice', acct: 'alice' });
  }
  if (request.method === 'GET' && url.pathname === `/api/v1/accounts/${ACCOUNT}/statuses`) {
    const q = url.searchParams;
    const limit = Math.min(Number(q.get('limit') ?? 20), 40);
    const since = q.get('since_id');
    const max = q.get('max_id');
    const found = statuses
      .filter((s) => (since === null || after(s.id, since)) && (max === null || after(max, s.id)))
      .filter((s) => q.get('exclude_reblogs') !== 'true' || s.reblog === null)
      .slice(0, limit);
    return json(response, 200, found);
  }
  if (request.method === 'POST' && url.pathname === '/api/v1/statuses') {
    const key = String(request.headers['idempotency-key']);
    const body = JSON.parse(request.body) as { status: string; visibility: Status['visibility'] };
    let created = byKey.get(key);
    if (!created) {
      created = status({ content: `<p>${body.status}</p>`, visibility: body.visibility });
      statuses.unshift(created);
      byKey.set(key, created);
    }
    return json(response, 200, created);
  }
  json(response, 404, { error: 'Record not found' });
}

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#cc3366' } })
    .png()
    .toBuffer();
  server = await startReceiver();
  server.answer = mastodon;
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
  // Each test polls its own services only.
  await t.database.db.deleteFrom('services').execute();
  await t.database.db.updateTable('jobs').set({ status: 'cancelled' }).where('status', '=', 'queued').execute();
  server.received.length = 0;
  statuses = [];
});
afterAll(async () => {
  await server.close();
  await t.close();
});

function runner(): JobRunner {
  clock = Math.max(clock, Date.now());
  const created = createJobRunner({ config: t.config, database: t.database, now: () => clock, random: () => 0.5 });
  runners.push(created);
  return created;
}

async function person() {
  const user = await createTestUser(t.database);
  const token = await tokenFor(t, user, [
    'get_services',
    'create_service',
    'manage_groups',
    'create_post',
    'get_private_scope',
  ]);
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const posts = async () => {
    const all = await Promise.all(['public', 'private'].map((scope) => call('GET', `/posts/${scope}?count=1000`)));
    return all
      .flatMap((answer) =>
        answer.json<
          {
            id: string;
            text: string;
            time: number;
            source: string | null;
            source_url: string | null;
            media_ids: string[];
          }[]
        >(),
      )
      .sort((a, b) => b.time - a.time);
  };
  return { user, call, posts };
}

const statusRequests = () =>
  server.received
    .filter((r) => r.path.startsWith(`/api/v1/accounts/${ACCOUNT}/statuses`))
    .map((r) => new URL(r.path, server.url).searchParams);

describe('mastodon import', () => {
  it('import: true adds the capability; without it the service only publishes', async () => {
    const { call } = await person();
    const importing = await call('POST', '/services', {
      type: 'mastodon',
      name: 'home',
      config: { instance_url: server.url, access_token: 'masto-token', import: true, interval_minutes: 30 },
    });
    expect(importing.statusCode).toBe(201);
    expect(importing.json()).toMatchObject({
      capabilities: ['publish', 'import'],
      config: { instance_url: server.url, access_token: '[redacted]', import: true, interval_minutes: 30 },
    });
    const publishing = await call('POST', '/services', {
      type: 'mastodon',
      name: 'out',
      config: { instance_url: server.url, access_token: 'masto-token' },
    });
    expect(publishing.json()).toMatchObject({ capabilities: ['publish'] });
    // Only the importing one polls.
    const jobs = await t.database.db
      .selectFrom('jobs')
      .select('ref')
      .where('kind', '=', 'poll')
      .where('status', '=', 'queued')
      .execute();
    expect(jobs.map((job) => job.ref)).toContain(importing.json<{ id: string }>().id);
    expect(jobs.map((job) => job.ref)).not.toContain(publishing.json<{ id: string }>().id);
  });

  it("brings the account's own statuses in with their images, then only newer ones by since_id; boosts and replies to others stay out", async () => {
    const { call, posts } = await person();
    const photo = status({
      content: '<p>A photo from the <a href="https://example.org/hill">hill</a> <script>alert(1)</script></p>',
      media_attachments: [{ id: 'm1', type: 'image', url: `${server.url}/media/photo.png`, description: 'Green hill' }],
    });
    const boost = status({ content: '', reblog: { id: '1', content: '<p>someone else</p>' } });
    const replyToOther = status({ content: '<p>@bob I agree</p>', in_reply_to_account_id: '999' });
    const thread = status({
      content: '<p>And more on that.</p>',
      in_reply_to_account_id: ACCOUNT,
      spoiler_text: 'long',
    });
    const followersOnly = status({ content: '<p>for friends</p>', visibility: 'private' });
    statuses = [followersOnly, thread, replyToOther, boost, photo];
    const created = await call('POST', '/services', {
      type: 'mastodon',
      name: 'home',
      config: { instance_url: server.url, access_token: 'masto-token', import: true },
    });
    const serviceId = created.json<{ id: string }>().id;
    expect(await runner().worker.runOnce()).toBe(1);

    const first = await posts();
    expect(first.map(({ text, source, source_url }) => ({ text, source, source_url }))).toEqual([
      { text: 'long\n\nAnd more on that.', source: serviceId, source_url: thread.url },
      { text: 'A photo from the hill', source: serviceId, source_url: photo.url },
    ]);
    expect(first.map((post) => post.time)).toEqual([
      Date.parse(thread.created_at) / 1000,
      Date.parse(photo.created_at) / 1000,
    ]);
    const [mediumId] = first[1]?.media_ids ?? [];
    const medium = await call('GET', `/media/id/${mediumId ?? ''}`);
    expect(medium.json()).toMatchObject({ kind: 'image', mime_type: 'image/png', caption: 'Green hill', width: 20 });
    const [firstQuery] = statusRequests();
    expect(firstQuery?.get('since_id')).toBeNull();
    expect(firstQuery?.get('exclude_reblogs')).toBe('true');

    const later = status({ content: '<p>Newer</p>' });
    statuses.unshift(later);
    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1);
    expect(statusRequests()[1]?.get('since_id')).toBe(followersOnly.id);
    expect((await posts()).map((post) => post.text)).toEqual([
      'Newer',
      'long\n\nAnd more on that.',
      'A photo from the hill',
    ]);

    // Nothing new: nothing stored.
    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1);
    expect(statusRequests()[2]?.get('since_id')).toBe(later.id);
    expect(await posts()).toHaveLength(3);
  });

  it('the echo rule: a post Waypost delivered to the account is not brought back from it', async () => {
    const { call, posts } = await person();
    const created = await call('POST', '/services', {
      type: 'mastodon',
      name: 'both ways',
      config: { instance_url: server.url, access_token: 'masto-token', import: true },
    });
    const serviceId = created.json<{ id: string }>().id;
    const group = await call('POST', '/services/groups', { name: 'masto', service_ids: [serviceId] });
    expect(await runner().worker.runOnce()).toBe(1); // the first poll: nothing there yet

    const posted = await call('POST', '/posts', { text: 'Written at home', groups: [group.json<{ id: string }>().id] });
    expect(posted.statusCode).toBe(202);
    expect(await runner().worker.runOnce()).toBe(1); // the delivery
    expect(statuses).toHaveLength(1);

    clock += 15 * MINUTE + 1;
    expect(await runner().worker.runOnce()).toBe(1); // the next poll sees the status
    expect(statusRequests()).toHaveLength(2);
    const all = await posts();
    expect(all.map(({ text, source }) => ({ text, source }))).toEqual([{ text: 'Written at home', source: null }]);
    const [delivery] = (await call('GET', `/posts/id/${posted.json<{ id: string }>().id}`)).json<{
      deliveries: { status: string; remote_url: string }[];
    }>().deliveries;
    expect(delivery).toMatchObject({ status: 'delivered', remote_url: statuses[0]?.url });
  });

  it('the echo rule, while the delivery is still pending (its answer was lost): matched by text', async () => {
    const { call, posts } = await person();
    const created = await call('POST', '/services', {
      type: 'mastodon',
      name: 'both ways',
      config: { instance_url: server.url, access_token: 'masto-token', import: true },
    });
    const serviceId = created.json<{ id: string }>().id;
    const group = await call('POST', '/services/groups', { name: 'masto', service_ids: [serviceId] });
    const posted = await call('POST', '/posts', { text: 'Lost  answer', groups: [group.json<{ id: string }>().id] });
    // The status reached the server, but the answer did not reach Waypost: the delivery waits
    // for its next attempt.
    statuses.unshift(status({ content: '<p>Lost answer</p>' }));
    await t.database.db
      .updateTable('jobs')
      .set({ run_at: Date.now() + 60 * MINUTE })
      .where('kind', '=', 'delivery')
      .execute();
    expect(await runner().worker.runOnce()).toBe(1); // the poll only
    expect(statusRequests()).toHaveLength(1);
    expect((await posts()).map(({ id, source }) => ({ id, source }))).toEqual([
      { id: posted.json<{ id: string }>().id, source: null },
    ]);
  });

  it('a token the server refuses: the service shows the error, nothing is stored, the poll backs off', async () => {
    const { call, posts } = await person();
    const created = await call('POST', '/services', {
      type: 'mastodon',
      name: 'revoked',
      config: { instance_url: server.url, access_token: 'revoked', import: true },
    });
    const serviceId = created.json<{ id: string }>().id;
    const { worker } = runner();
    expect(await worker.runOnce()).toBe(1);
    const service = await call('GET', `/services/${serviceId}`);
    expect(service.json()).toEqual([
      expect.objectContaining({ status: 'error', last_error: `HTTP 401 from ${server.url}` }),
    ]);
    expect(await posts()).toEqual([]);
    clock += 15 * MINUTE + 1;
    expect(await worker.runOnce()).toBe(0); // twice the interval after one failure
    clock += 15 * MINUTE;
    expect(await worker.runOnce()).toBe(1);
  });
});
