// GET /info against what the server actually enforces: the OAuth server's scopes, the
// collection limits, the batch and post limits, the body limit, the views limit, and URLs
// that answer.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { tokenFor } from '../../test/tokens.ts';
import { PERMISSIONS } from '../core/permissions.ts';
import { signIn } from '../account/sessions.logic.ts';
import { signInLimits } from '../account/sign-in-limits.logic.ts';
import { mcpLimits, spendRequest } from '../mcp/mcp.limits.ts';

interface Info {
  name: string;
  version: string;
  permissions: { name: string; description: string }[];
  service_types: { type: string; description: string; capabilities: string[] }[];
  limits: Record<string, number> & {
    rate_limits: { name: string; limit: number; window_seconds: number; per: string }[];
  };
  urls: Record<string, string>;
}

let t: TestApp;
let info: Info;
let user: Awaited<ReturnType<typeof createTestUser>>;
let token: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_UPLOAD_LIMIT: '12345' } });
  const response = await t.app.inject({ method: 'GET', url: '/info' });
  expect(response.statusCode).toBe(200);
  info = response.json<Info>();
  user = await createTestUser(t.database, { username: 'limits' });
  token = await tokenFor(t, user, ['create_post', 'write_locations', 'get_views', 'manage_views', 'get_private_scope']);
});
afterAll(() => t.close());

const auth = () => ({ authorization: `Bearer ${token}` });

describe('GET /info', () => {
  it('needs no token and names the server and its version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(info.name).toBe('Waypost');
    expect(info.version).toBe(pkg.version);
    expect(Object.keys(info).sort()).toEqual(['limits', 'name', 'permissions', 'service_types', 'urls', 'version']);
  });

  it('lists exactly the permissions the OAuth server grants, with their descriptions', async () => {
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.statusCode).toBe(200);
    const granted = metadata.json<{ scopes_supported: string[] }>().scopes_supported;
    expect(info.permissions.map((p) => p.name).sort()).toEqual([...granted].sort());
    for (const permission of info.permissions) {
      expect(permission.description).toBe(PERMISSIONS[permission.name as keyof typeof PERMISSIONS]);
      expect(permission.description.length).toBeGreaterThan(0);
    }
  });

  it('lists exactly the service types POST /services takes, with the capabilities a new service shows', async () => {
    const admin = await tokenFor(t, user, ['create_service']);
    const create = (type: string, config: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/services',
        headers: { authorization: `Bearer ${admin}` },
        payload: { type, name: `a ${type}`, config },
      });
    const unknown = await create('carrier_pigeon', {});
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain('body/type');

    const configs: Record<string, Record<string, string>> = {
      webhook: { url: 'https://hooks.example.com/in', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
      mastodon: { instance_url: 'https://mastodon.example.com', access_token: 'token' },
      micropub: { endpoint: 'https://site.example.com/micropub', access_token: 'token' },
      feed: { url: 'https://blog.example.com/feed.xml' },
      bluesky: { handle: 'alice.bsky.social', app_password: 'abcd-efgh-ijkl-mnop' },
      owntracks: {},
      overland: {},
      gpslogger: {},
    };
    expect(info.service_types.length).toBeGreaterThan(0);
    for (const { type, description, capabilities } of info.service_types) {
      expect(description.length, type).toBeGreaterThan(0);
      // Every type listed is one the server takes: a wrong config is refused for the config, not the
      // type. (A field no type has is wrong for all of them, trackers included, which need none.)
      const wrong = await create(type, { not_a_setting: 'x' });
      expect(wrong.statusCode, type).toBe(400);
      const paths = wrong.json<{ errors?: { path: string }[] }>().errors?.map((e) => e.path) ?? [];
      expect(paths, type).not.toContain('body/type');
      const config = configs[type];
      expect(config, `a test config for the new type ${type}`).toBeDefined();
      const made = await create(type, config!);
      expect(made.statusCode, made.body).toBe(201);
      expect(made.json(), type).toMatchObject({ type, capabilities });
    }
  });

  it('the URLs answer: OAuth metadata, the OpenAPI document (which documents /info), the docs', async () => {
    const path = (url: string) => new URL(url).pathname;
    expect(info.urls.oauth_metadata).toBe('http://waypost.test/.well-known/oauth-authorization-server');
    const metadata = await t.app.inject({ method: 'GET', url: path(info.urls.oauth_metadata!) });
    expect(metadata.json()).toMatchObject({ issuer: 'http://waypost.test' });
    const openapi = await t.app.inject({ method: 'GET', url: path(info.urls.openapi!) });
    expect(openapi.statusCode).toBe(200);
    const document = openapi.json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(document.openapi).toBe('3.1.0');
    for (const documented of ['/info', '/settings', '/views', '/views/{id}'])
      expect(document.paths).toHaveProperty([documented]);
    expect([200, 302]).toContain((await t.app.inject({ method: 'GET', url: path(info.urls.docs!) })).statusCode);
  });
});

describe('the limits are the ones enforced', () => {
  it('count: the default when none is given, the maximum accepted, one more refused', async () => {
    const { count_default: byDefault, count_max: max } = info.limits;
    await insertItems(
      t.database,
      'posts',
      user.id,
      Array.from({ length: byDefault! + 1 }, () => ({ scope: 'public' as const })),
    );
    const page = await t.app.inject({ method: 'GET', url: '/posts/public/limits' });
    expect(page.json<unknown[]>()).toHaveLength(byDefault!);
    expect((await t.app.inject({ method: 'GET', url: `/posts/public/limits?count=${max}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/posts/public/limits?count=${max! + 1}` })).statusCode).toBe(400);
  });

  it('post length: the maximum is stored, one character more is 400', async () => {
    const max = info.limits.post_text_max!;
    const send = (text: string) =>
      t.app.inject({ method: 'POST', url: '/posts', headers: auth(), payload: { text, groups: [] } });
    expect((await send('é'.repeat(max))).statusCode).toBe(202);
    expect((await send('é'.repeat(max + 1))).statusCode).toBe(400);
  });

  it('location batch: the maximum is stored, one point more is refused', async () => {
    const max = info.limits.location_batch_max!;
    const points = (n: number, lat: number) =>
      Array.from({ length: n }, (_, i) => ({ time: 1_700_000_000 + i, lat, lon: 0 }));
    const send = (payload: unknown[]) => t.app.inject({ method: 'POST', url: '/locations', headers: auth(), payload });
    const full = await send(points(max, 1));
    expect(full.statusCode).toBe(200);
    expect(full.json()).toEqual({ stored: max, duplicates: 0 });
    expect((await send(points(max + 1, 2))).statusCode).toBe(400);
  });

  it('request body: over the limit is 413', async () => {
    const max = info.limits.request_body_bytes!;
    const response = await t.app.inject({
      method: 'POST',
      url: '/views',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'big', description: 'x'.repeat(max) }),
    });
    expect(response.statusCode).toBe(413);
  });

  it('upload size: the configured limit', () => {
    expect(info.limits.upload_bytes).toBe(t.config.uploadLimit);
    expect(info.limits.upload_bytes).toBe(12345);
  });

  it('views: the maximum is kept, one more is 409', async () => {
    const max = info.limits.views_max!;
    const rows = Array.from({ length: max }, (_, i) => ({
      user_id: user.id,
      id: `view${String(i).padStart(6, '0')}`,
      name: `v${i}`,
      description: '',
      kinds: '["posts"]',
      filters: '{}',
      scope: 'public' as const,
      created_at: i,
      updated_at: i,
    }));
    await t.database.db
      .insertInto('views')
      .values(rows.slice(0, max - 1))
      .execute();
    const create = () =>
      t.app.inject({ method: 'POST', url: '/views', headers: auth(), payload: { name: 'one more' } });
    expect((await create()).statusCode).toBe(201);
    const refused = await create();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'too_many_views' });
  });

  it("an assistant's requests to /mcp: per grant, a minute's budget, as /mcp counts them", async () => {
    const mcp = info.limits.rate_limits.find((limit) => limit.name === 'mcp_requests');
    expect(mcp).toEqual({ name: 'mcp_requests', limit: 120, window_seconds: 60, per: 'grant' });
    const limits = mcpLimits(t.config.secretKey, t.config.mcpRequestsPerMinute);
    for (let i = 0; i < mcp!.limit; i += 1) await spendRequest(t.database.db, limits, 'grant-of-info-test');
    await expect(spendRequest(t.database.db, limits, 'grant-of-info-test')).rejects.toMatchObject({
      code: 'too_many_requests',
    });
    // Another grant has a budget of its own.
    await spendRequest(t.database.db, limits, 'another-grant');
  });

  it('sign-in limits: per account and IP, per IP, and the throttle per account, as the sign-in counts them', async () => {
    const [pair, ip, account] = info.limits.rate_limits;
    expect(pair).toEqual({ name: 'sign_in_failures', limit: 5, window_seconds: 900, per: 'account_and_ip' });
    expect(ip).toEqual({ name: 'sign_in_failures', limit: 100, window_seconds: 900, per: 'ip' });
    expect(account).toEqual({
      name: 'sign_in_failures',
      limit: 10,
      window_seconds: 900,
      per: 'account',
      max_delay_seconds: 300,
    });
    const db = t.database.db;
    const limits = signInLimits(t.config);
    const at = Date.parse('2026-01-01T00:00:00Z');
    // One address against one account: refused after its limit, for the rest of the window.
    for (let i = 0; i < pair!.limit; i += 1) {
      expect(await signIn(db, limits, 'limits', 'wrong password', { ip: '192.0.2.1' }, at)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
    expect(await signIn(db, limits, 'limits', user.password, { ip: '192.0.2.1' }, at)).toEqual({
      ok: false,
      reason: 'limited',
      retryAfterSeconds: pair!.window_seconds,
    });
    // The account from many addresses: after its limit, each attempt waits 1 s after the one before.
    for (let i = pair!.limit; i < account!.limit; i += 1) {
      expect(await signIn(db, limits, 'limits', 'wrong password', { ip: `192.0.2.${10 + i}` }, at)).toMatchObject({
        reason: 'invalid',
      });
    }
    expect(await signIn(db, limits, 'limits', user.password, { ip: '192.0.2.100' }, at)).toEqual({
      ok: false,
      reason: 'limited',
      retryAfterSeconds: 1,
    });
    expect(await signIn(db, limits, 'limits', user.password, { ip: '192.0.2.100' }, at + 1000)).toMatchObject({
      ok: true,
    });
    // One address against several accounts (each below its own limits): refused after the
    // address's limit, for every account; another address is not.
    const perAccount = pair!.limit - 1;
    const accounts = Math.ceil(ip!.limit / perAccount);
    const names = [];
    for (let i = 0; i < accounts; i += 1) names.push((await createTestUser(t.database)).username);
    for (let i = 0; i < ip!.limit; i += 1) {
      const name = names[Math.floor(i / perAccount)]!;
      expect(await signIn(db, limits, name, 'wrong password', { ip: '198.51.100.7' }, at)).toMatchObject({
        reason: 'invalid',
      });
    }
    const other = await createTestUser(t.database);
    expect(await signIn(db, limits, other.username, other.password, { ip: '198.51.100.7' }, at)).toMatchObject({
      reason: 'limited',
    });
    expect(await signIn(db, limits, other.username, other.password, { ip: '198.51.100.8' }, at)).toMatchObject({
      ok: true,
    });
  });
});
