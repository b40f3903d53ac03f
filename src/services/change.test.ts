// POST /services/<id> through HTTP, on a real database: partial changes, secrets write-only
// (checked by the signature a receiver sees), enabling a service that lacks its secrets, and a
// disabled service taking no deliveries, no retries and no points.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { createJobRunner, type JobRunner } from '../job-runner.ts';
import { newId } from '../lib/ids.ts';
import { secretsKey, sealSecrets } from './secrets.ts';

const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
let t: TestApp;
let alice: { id: string; username: string };
let bob: { id: string; username: string };
let alices: string;
let bobs: string;
let target: Receiver;
let clock = Date.now();
const runners: JobRunner[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback', WAYPOST_DELIVERY_MAX_ATTEMPTS: '1' } });
  target = await startReceiver();
  alice = await createTestUser(t.database);
  bob = await createTestUser(t.database);
  const all = ['create_post', 'get_services', 'create_service', 'delete_service', 'manage_groups'] as const;
  alices = await tokenFor(t, alice, [...all]);
  bobs = await tokenFor(t, bob, [...all]);
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
  target.received.length = 0;
});
afterAll(async () => {
  await target.close();
  await t.close();
});

function call(method: 'GET' | 'POST' | 'DELETE', url: string, token: string, payload?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function webhook(name = 'hook', token = alices) {
  const response = await call('POST', '/services', token, {
    type: 'webhook',
    name,
    config: { url: `${target.url}/in`, secret: OLD },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string; created_at: number }>();
}

/** Posts to a group holding the service and runs the worker once; the post's deliveries. */
async function postTo(serviceId: string) {
  const group = await call('POST', '/services/groups', alices, { name: 'g', service_ids: [serviceId] });
  const posted = await call('POST', '/posts', alices, { text: 'Hello', groups: [group.json<{ id: string }>().id] });
  expect(posted.statusCode).toBe(202);
  clock = Math.max(clock, Date.now());
  const runner = createJobRunner({ config: t.config, database: t.database, now: () => clock, random: () => 0.5 });
  runners.push(runner);
  while ((await runner.worker.runOnce()) > 0);
  return posted.json<{ id: string; deliveries: { service_id: string }[] }>();
}

/** Whether the last request the receiver saw was signed with `secret`. */
function signedWith(secret: string): boolean {
  const request = target.received.at(-1)!;
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe('POST /services/<id>', () => {
  it('changes the name and a setting; the secret left out is kept; 200 with the service, secret redacted', async () => {
    const hook = await webhook();
    const response = await call('POST', `/services/${hook.id}`, alices, {
      name: 'renamed',
      config: { url: `${target.url}/elsewhere` },
    });
    expect(response.statusCode).toBe(200);
    const expected = {
      id: hook.id,
      type: 'webhook',
      name: 'renamed',
      enabled: true,
      capabilities: ['publish'],
      config: { url: `${target.url}/elsewhere`, secret: '[redacted]' },
      status: 'ok',
      last_error: null,
      created_at: hook.created_at,
    };
    expect(response.json()).toEqual(expected);
    expect((await call('GET', `/services/${hook.id}`, alices)).json()).toEqual([expected]);
    await postTo(hook.id);
    expect(target.received.map((r) => r.path)).toEqual(['/elsewhere']);
    expect(signedWith(OLD)).toBe(true);
  });

  it('a secret given replaces the stored one; "[redacted]" sent back keeps it', async () => {
    const hook = await webhook();
    const kept = await call('POST', `/services/${hook.id}`, alices, { config: { secret: '[redacted]' } });
    expect(kept.statusCode).toBe(200);
    const changed = await call('POST', `/services/${hook.id}`, alices, { config: { secret: NEW } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({ config: { url: `${target.url}/in`, secret: '[redacted]' } });
    expect(changed.body).not.toContain(NEW);
    await postTo(hook.id);
    expect(signedWith(NEW)).toBe(true);
    expect(signedWith(OLD)).toBe(false);
  });

  it("a config the type's schema refuses is 400 naming each field; nothing changes", async () => {
    const hook = await webhook('kept');
    const response = await call('POST', `/services/${hook.id}`, alices, {
      name: 'not saved',
      config: { url: 'ftp://x.example/', secret: 'hunter2', extra: 1 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      type: 'urn:waypost:problem:invalid_request',
      title: 'Bad Request',
      status: 400,
      code: 'invalid_request',
      detail:
        'The webhook configuration is invalid: body/config/extra is not a webhook setting; body/config/url must be a web address starting with https:// (or http://); body/config/secret must be whsec_ followed by 32 to 88 base64 letters; or leave it out and Waypost makes one for you.',
      errors: [
        { path: 'body/config/extra', message: 'is not a webhook setting' },
        { path: 'body/config/url', message: 'must be a web address starting with https:// (or http://)' },
        {
          path: 'body/config/secret',
          message: 'must be whsec_ followed by 32 to 88 base64 letters; or leave it out and Waypost makes one for you',
        },
      ],
    });
    expect(response.body).not.toContain('hunter2');
    const removed = await call('POST', `/services/${hook.id}`, alices, { config: { secret: null, url: null } });
    expect(removed.statusCode).toBe(400);
    expect(removed.json<{ errors: unknown }>().errors).toEqual([
      { path: 'body/config/secret', message: 'is a secret: give a new value to replace it' },
      { path: 'body/config/url', message: 'is required' },
    ]);
    expect((await call('GET', `/services/${hook.id}`, alices)).json()).toEqual([
      expect.objectContaining({ name: 'kept', config: { url: `${target.url}/in`, secret: '[redacted]' } }),
    ]);
  });

  it('a body with an unknown field or a wrong type is 400; without create_service 401', async () => {
    const hook = await webhook();
    const extra = await call('POST', `/services/${hook.id}`, alices, { type: 'mastodon' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json()).toMatchObject({ code: 'validation_failed' });
    const wrong = await call('POST', `/services/${hook.id}`, alices, { enabled: 'no' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json<{ errors: unknown }>().errors).toEqual([{ path: 'body/enabled', message: 'must be boolean' }]);
    const reader = await tokenFor(t, alice, ['get_services']);
    const refused = await call('POST', `/services/${hook.id}`, reader, { name: 'x' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'insufficient_scope' });
  });

  it("another person's service is 404 with the same body as a missing one, and is unchanged", async () => {
    const bobsHook = await webhook('bobs', bobs);
    const foreign = await call('POST', `/services/${bobsHook.id}`, alices, { name: 'mine now', enabled: false });
    const missing = await call('POST', '/services/01J00000000000000000000000', alices, { name: 'x' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(missing.json());
    expect(foreign.json()).toMatchObject({ status: 404, code: 'not_found', detail: 'No such service.' });
    expect((await call('GET', `/services/${bobsHook.id}`, bobs)).json()).toEqual([
      expect.objectContaining({ name: 'bobs', enabled: true }),
    ]);
  });

  it('disabled: no new delivery and no retry; enabled again: it gets the next post', async () => {
    const hook = await webhook();
    const off = await call('POST', `/services/${hook.id}`, alices, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ enabled: false });
    const skipped = await postTo(hook.id);
    expect(skipped.deliveries).toEqual([]);
    expect(target.received).toEqual([]);

    // A delivery that failed before the service was switched off is not tried again.
    const on = await call('POST', `/services/${hook.id}`, alices, { enabled: true });
    expect(on.json()).toMatchObject({ enabled: true });
    target.answer = (_request, response) => response.writeHead(500).end();
    const failed = await postTo(hook.id);
    target.answer = (_request, response) => response.writeHead(204).end();
    await call('POST', `/services/${hook.id}`, alices, { enabled: false });
    const retry = await call('POST', `/posts/id/${failed.id}/deliveries/${hook.id}/retry`, alices);
    expect(retry.statusCode).toBe(409);
    expect(retry.json()).toMatchObject({
      code: 'delivery_not_retryable',
      detail: 'The service is disabled: enable it to try the delivery again.',
    });

    await call('POST', `/services/${hook.id}`, alices, { enabled: true });
    target.received.length = 0;
    const sent = await postTo(hook.id);
    expect(sent.deliveries.map((d) => d.service_id)).toEqual([hook.id]);
    expect(target.received).toHaveLength(1);
  });

  it('a restored service lacks its secrets: shown, 409 to enable without them, 200 with them', async () => {
    // As src/archive/restore/ stores a service from an export: disabled, its secrets left out.
    const id = newId();
    const now = Date.now();
    await t.database.db
      .insertInto('services')
      .values({
        id,
        user_id: alice.id,
        type: 'webhook',
        name: 'restored',
        enabled: 0,
        config: JSON.stringify({ url: `${target.url}/in` }),
        secrets: sealSecrets(secretsKey(t.config.secretKey), id, {}),
        status: 'ok',
        last_error: null,
        created_at: now,
        updated_at: now,
        ingest_token_hash: null,
      })
      .execute();
    const read = await call('GET', `/services/${id}`, alices);
    expect(read.json()).toEqual([
      expect.objectContaining({
        enabled: false,
        config: { url: `${target.url}/in`, secret: '[redacted]' },
        missing_secrets: ['secret'],
      }),
    ]);
    const renamed = await call('POST', `/services/${id}`, alices, { name: 'still off' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'still off', enabled: false, missing_secrets: ['secret'] });

    const refused = await call('POST', `/services/${id}`, alices, { enabled: true });
    expect(refused.statusCode).toBe(409);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.json()).toEqual({
      type: 'urn:waypost:problem:service_needs_secrets',
      title: 'Conflict',
      status: 409,
      code: 'service_needs_secrets',
      detail: 'The service cannot be enabled without its secrets: secret.',
      errors: [{ path: 'body/config/secret', message: 'is required to enable the service' }],
    });

    const enabled = await call('POST', `/services/${id}`, alices, { enabled: true, config: { secret: NEW } });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toEqual({
      id,
      type: 'webhook',
      name: 'still off',
      enabled: true,
      capabilities: ['publish'],
      config: { url: `${target.url}/in`, secret: '[redacted]' },
      status: 'ok',
      last_error: null,
      created_at: now / 1000,
    });
    await postTo(id);
    expect(signedWith(NEW)).toBe(true);
  });

  it('a tracker: disabled it stores nothing, enabled again its ingest token still works; it takes no settings', async () => {
    const created = await call('POST', '/services', alices, { type: 'owntracks', name: 'phone', config: {} });
    const tracker = created.json<{ id: string; ingest: { url: string; token: string } }>();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: new URL(tracker.ingest.url).pathname,
        headers: { authorization: `Bearer ${tracker.ingest.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ _type: 'location', lat: 52.5, lon: 13.4, tst: 1737558539 }),
      });
    const stored = () => t.database.db.selectFrom('locations').select('id').where('source', '=', tracker.id).execute();

    const off = await call('POST', `/services/${tracker.id}`, alices, { enabled: false });
    expect(off.json()).toEqual(
      expect.objectContaining({ enabled: false, ingest: { url: tracker.ingest.url }, config: {} }),
    );
    const refused = await send();
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'service_disabled' });
    expect(await stored()).toEqual([]);

    expect((await call('POST', `/services/${tracker.id}`, alices, { enabled: true })).statusCode).toBe(200);
    const accepted = await send();
    expect(accepted.statusCode).toBe(200);
    expect(await stored()).toHaveLength(1);

    const settings = await call('POST', `/services/${tracker.id}`, alices, { config: { interval_minutes: 5 } });
    expect(settings.statusCode).toBe(400);
    expect(settings.json<{ errors: unknown }>().errors).toEqual([
      { path: 'body/config/interval_minutes', message: 'is not a owntracks setting' },
    ]);
  });
});
