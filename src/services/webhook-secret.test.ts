// A webhook's signing secret made by Waypost (docs/api.md "Services and groups"): given none,
// `POST /services` makes one and shows it once in `generated_secrets`; `POST /services/<id>/secret`
// makes a new one, after which only the new one signs. Never shown again by any read.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';

let t: TestApp;
let token: string;
let receiver: Receiver;
const SECRET_FORM = /^whsec_[A-Za-z0-9+/]{43}=$/;

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback' } });
  token = await tokenFor(t, await createTestUser(t.database), ['create_service', 'get_services']);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object, bearer = token) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload } : {}) });

/** Sends a test event and answers whether `secret` verifies its signature. */
async function signsWith(id: string, secret: string): Promise<boolean> {
  const before = receiver.received.length;
  expect((await call('POST', `/services/${id}/test`)).json()).toMatchObject({ ok: true });
  const event = receiver.received[before]!;
  try {
    new Webhook(secret).verify(event.body, event.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe("a webhook's signing secret", () => {
  it('is made when none is given, shown in that answer only, and signs the events', async () => {
    const created = await call('POST', '/services', {
      type: 'webhook',
      name: 'Home',
      config: { url: `${receiver.url}/hook` },
    });
    expect(created.statusCode).toBe(201);
    const service = created.json<{ id: string; config: object; generated_secrets: { secret: string } }>();
    expect(service.config).toEqual({ url: `${receiver.url}/hook`, secret: '[redacted]' });
    expect(Object.keys(service.generated_secrets)).toEqual(['secret']);
    const secret = service.generated_secrets.secret;
    expect(secret).toMatch(SECRET_FORM);
    const read = await call('GET', `/services/${service.id}`);
    expect(read.body).not.toContain(secret.slice(6));
    expect(read.json<object[]>()[0]).not.toHaveProperty('generated_secrets');
    expect((await call('GET', '/services')).body).not.toContain(secret.slice(6));
    expect(await signsWith(service.id, secret)).toBe(true);
  });

  it('given, is kept and not shown back', async () => {
    const given = `whsec_${Buffer.alloc(24, 8).toString('base64')}`;
    const created = await call('POST', '/services', {
      type: 'webhook',
      name: 'Own secret',
      config: { url: `${receiver.url}/own`, secret: given },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).not.toHaveProperty('generated_secrets');
    expect(created.body).not.toContain(given.slice(6));
    expect(await signsWith(created.json<{ id: string }>().id, given)).toBe(true);
  });

  it('is made anew on request: the new one signs, the old one no longer', async () => {
    const created = await call('POST', '/services', {
      type: 'webhook',
      name: 'Rotated',
      config: { url: receiver.url },
    });
    const { id, generated_secrets: first } = created.json<{ id: string; generated_secrets: { secret: string } }>();
    const renewed = await call('POST', `/services/${id}/secret`);
    expect(renewed.statusCode).toBe(200);
    const answer = renewed.json<{ id: string; enabled: boolean; generated_secrets: { secret: string } }>();
    expect(answer).toMatchObject({ id, enabled: true });
    expect(answer.generated_secrets.secret).toMatch(SECRET_FORM);
    expect(answer.generated_secrets.secret).not.toBe(first.secret);
    expect(await signsWith(id, answer.generated_secrets.secret)).toBe(true);
    expect(await signsWith(id, first.secret)).toBe(false);
    expect((await call('GET', `/services/${id}`)).body).not.toContain(answer.generated_secrets.secret.slice(6));
  });

  it('is not made for a type whose secrets are entered (400), for another person (404), or without create_service (401)', async () => {
    const mastodon = await call('POST', '/services', {
      type: 'mastodon',
      name: 'M',
      config: { instance_url: 'https://m.example', access_token: 'x' },
    });
    const refused = await call('POST', `/services/${mastodon.json<{ id: string }>().id}/secret`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ errors: unknown }>().errors).toEqual([
      { path: 'params/id', message: 'is a mastodon service, whose secrets are entered' },
    ]);
    const hook = (await call('POST', '/services', { type: 'webhook', name: 'W', config: { url: receiver.url } })).json<{
      id: string;
    }>();
    const stranger = await tokenFor(t, await createTestUser(t.database), ['create_service']);
    expect((await call('POST', `/services/${hook.id}/secret`, undefined, stranger)).statusCode).toBe(404);
    const reader = await tokenFor(t, await createTestUser(t.database), ['get_services']);
    expect((await call('POST', `/services/${hook.id}/secret`, undefined, reader)).statusCode).toBe(401);
  });
});
