// An assistant connects as a real one does (docs/mcp.md "Connecting"): the official SDK's Client
// with StreamableHTTPClientTransport and its OAuth client provider, against a listening server,
// knowing nothing but the URL. Unauthenticated call -> 401 with resource_metadata -> metadata ->
// dynamic registration -> authorization code with PKCE through the real consent page (Chromium
// signs in and unticks permissions) -> token -> tools/list shows only the granted tools -> each
// tool answers what the REST API answers -> a token for another resource is refused -> revoking
// the app on the Apps page makes the next call 401.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batches, stay, seeded, walk } from '../../test/days.ts';
import { createTestUser } from '../../test/helpers.ts';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { listeningTestApp } from '../../test/server.ts';
import { boundTokenFor, tokenFor } from '../../test/tokens.ts';
import { axeViolations, launchChromium } from '../../test/web.ts';
import { PERMISSIONS } from '../core/permissions.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
let browser: Browser;
let callback: Server;
let redirectUrl: string;
let person: Awaited<ReturnType<typeof createTestUser>>;
/** The person's own REST token, reading everything: the answers tools are checked against. */
let rest: string;
const ids: Record<string, string> = {};

/** What an MCP client keeps between runs, in memory; the browser step fills `authorizationUrl`. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Pocket Assistant',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.info = undefined;
  }
}

const DAY = '2024-05-03';
const HOME = { lat: 52.52, lon: 13.405 };
const PARK = { lat: 52.5145, lon: 13.35 };

beforeAll(async () => {
  t = await listeningTestApp();
  person = await createTestUser(t.database, { username: 'grace', password: 'a walk by the river' });
  rest = await tokenFor(t, person, [
    'get_private_scope',
    'create_post',
    'upload_media',
    'write_locations',
    'get_settings',
    'create_service',
    'manage_groups',
  ]);
  const call = async (method: 'POST' | 'GET', url: string, payload?: unknown) => {
    const response = await t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${rest}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json<{ id: string }>();
  };
  ids.publicPost = (
    await call('POST', '/posts', { text: 'Otters in the river today', scope: 'public', groups: [] })
  ).id;
  ids.privatePost = (
    await call('POST', '/posts', { text: 'Otters den, keep it private', scope: 'private', groups: [] })
  ).id;
  const medium = await uploadMedium(t, rest, await gpsPhoto(), 'otter.jpg', 'image/jpeg', { caption: 'an otter' });
  ids.medium = medium.json<{ id: string }>().id;
  const service = await call('POST', '/services', {
    type: 'webhook',
    name: 'Blog hook',
    config: { url: 'https://hooks.example/in', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  });
  ids.service = service.id;
  ids.group = (await call('POST', '/services/groups', { name: 'Blog', service_ids: [service.id] })).id;
  // A day of the person's life: home, a walk to the park, the park, a walk home.
  const random = seeded(7);
  const at = (hh: number, mm = 0) => Date.UTC(2024, 4, 3, hh, mm);
  const fixes = [
    ...stay(HOME, at(8), at(10), random),
    ...walk(HOME, PARK, at(10), at(10, 45)),
    ...stay(PARK, at(10, 45), at(12, 45), random),
    ...walk(PARK, HOME, at(12, 45), at(13, 30)),
    ...stay(HOME, at(13, 30), at(16), random),
  ];
  for (const batch of batches(fixes)) await call('POST', '/locations', batch);

  callback = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>Assistant</title><h1>Done</h1>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirectUrl = `http://127.0.0.1:${(callback.address() as { port: number }).port}/callback`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
  await t?.close();
});

const mcpUrl = () => new URL('/mcp', t.baseUrl);
const restGet = async <T>(url: string): Promise<T> => {
  const response = await t.app.inject({ url, headers: { authorization: `Bearer ${rest}` } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
};

async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as T;
}

const GRANTED = ['get_private_scope', 'create_post', 'get_settings'] as const;

describe('an assistant connecting with nothing but the URL', () => {
  const provider = new MemoryProvider();
  let client: Client;
  let page: Page;

  it('is sent through discovery and registration to the consent page, where the person unticks permissions', async () => {
    const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    const refused = await new Client({ name: 'pocket', version: '1.0.0' }).connect(first).then(
      () => 'connected',
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UnauthorizedError);
    // It registered itself (RFC 7591) and asks for the MCP endpoint's resource (RFC 8707) with PKCE.
    expect(provider.info?.client_id).toMatch(/./);
    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(url.searchParams.get('resource')).toBe(`${t.baseUrl}/mcp`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')!.split(' ').sort()).toEqual(Object.keys(PERMISSIONS).sort());

    page = await (await browser.newContext()).newPage();
    await page.goto(url.href);
    await page.getByLabel('Username').fill(person.username);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/interaction\//);
    expect(await page.title()).toBe('Connect Pocket Assistant? · Waypost');
    await expect
      .poll(() =>
        page
          .getByRole('heading', { name: 'Connect the third-party assistant “Pocket Assistant” to your Waypost?' })
          .count(),
      )
      .toBe(1);
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await axeViolations(page)).toEqual([]);
    }
    for (const [name, words] of Object.entries(PERMISSIONS)) {
      const box = page.getByRole('checkbox', { name: new RegExp(`^${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });
      expect(await box.isChecked()).toBe(true);
      if (!(GRANTED as readonly string[]).includes(name)) await box.uncheck();
    }
    await Promise.all([page.waitForURL(/\/callback\?/), page.getByRole('button', { name: 'Allow' }).click()]);
    const back = new URL(page.url());
    expect(back.searchParams.get('iss')).toBe(t.baseUrl);
    await first.finishAuth(back.searchParams.get('code')!);
    expect(provider.saved?.access_token).toMatch(/./);
    expect(provider.saved?.scope?.split(' ').sort()).toEqual([...GRANTED].sort());

    client = new Client({ name: 'pocket', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  }, 60_000);

  it('lists only the tools the grant allows', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'search',
      'get_timeline',
      'where_was_i',
      'get_location_summary',
      'list_media',
      'get_post',
      'get_settings',
      'create_post',
    ]);
  });

  it('answers each tool as the REST API answers', async () => {
    const found = await call<{ results: unknown[] }>(client, 'search', { query: 'otters' });
    expect(found.results).toEqual(await restGet('/search?q=otters&count=20'));

    const post = await call<Record<string, unknown>>(client, 'get_post', { id: ids.privatePost });
    expect(post).toEqual(await restGet(`/posts/id/${ids.privatePost}`));

    const settings = await call<Record<string, unknown>>(client, 'get_settings');
    expect(settings).toEqual(await restGet('/settings'));

    const since = Date.UTC(2024, 4, 3) / 1000;
    const until = since + 86_400;
    const day = await call<{ visits: { id: string }[]; trips: { id: string }[]; posts: unknown[] }>(
      client,
      'get_timeline',
      { date: DAY },
    );
    const visits = await restGet<{ id: string; place: { id: string } }[]>(
      `/locations/visits?since_time=${since}&until_time=${until}&count=200`,
    );
    expect(visits.length).toBe(3);
    expect(day.visits).toEqual(visits);
    expect(day.trips).toEqual(await restGet(`/locations/trips?since_time=${since}&until_time=${until}&count=200`));
    expect(day.posts).toEqual([]);

    const now = new Date();
    const today = await call<{ posts: { id: string }[]; media: { id: string }[] }>(client, 'get_timeline', {
      start: new Date(now.getTime() - 3_600_000).toISOString(),
      end: new Date(now.getTime() + 3_600_000).toISOString(),
    });
    const range = `since_time=${now.getTime() / 1000 - 3600}&until_time=${now.getTime() / 1000 + 3600}&order=asc`;
    const posts = [
      ...(await restGet<{ id: string; time: number }[]>(`/posts/public?${range}`)),
      ...(await restGet<{ id: string; time: number }[]>(`/posts/private?${range}`)),
    ].sort((a, b) => a.time - b.time || a.id.localeCompare(b.id));
    expect(today.posts).toEqual(posts);
    expect(today.posts.map((p) => p.id)).toEqual([ids.publicPost, ids.privatePost]);

    const media = await call<{ media: { id: string; url: string }[] }>(client, 'list_media');
    const restMedia = [
      ...(await restGet<{ id: string }[]>('/media/public')),
      ...(await restGet<{ id: string }[]>('/media/private')),
    ];
    expect(media.media).toEqual(restMedia);
    expect(media.media[0]!.url).toBe(`${t.baseUrl}/media/id/${ids.medium}/file`);

    const where = await call<{ visit: { id: string }; place: { city: string; country: string } }>(
      client,
      'where_was_i',
      { time: `${DAY}T11:30:00Z` },
    );
    expect(where.visit).toEqual(visits[1]);
    expect(where.place).toEqual({ name: null, city: 'Berlin', country: 'Germany', country_code: 'DE' });

    const summary = await call<Record<string, unknown>>(client, 'get_location_summary', { year: 2024 });
    expect(summary).toEqual(await restGet('/locations/summary?year=2024'));
  });

  it('writes a post as POST /posts does and says which services will receive it', async () => {
    const result = (await client.callTool({
      name: 'create_post',
      arguments: { text: 'Written by my assistant', scope: 'private', groups: ['Blog'] },
    })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    const text = (result.content[0] as { text: string }).text;
    expect(text.split('\n')[0]).toMatch(
      /^Stored as a private post \(id \w+\)\. It will be delivered to: Blog hook \(webhook\)\.$/,
    );
    const { post } = result.structuredContent as { post: { id: string } };
    const stored = await restGet<{ text: string; deliveries: { service_id: string; status: string }[] }>(
      `/posts/id/${post.id}`,
    );
    expect(stored.text).toBe('Written by my assistant');
    expect(stored.deliveries.map((d) => [d.service_id, d.status])).toEqual([[ids.service, 'pending']]);
    expect(post).toEqual({ ...stored, deliveries: stored.deliveries });

    const refused = await client.callTool({ name: 'add_location', arguments: { lat: 1, lon: 2 } }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(refused).toContain('Unknown tool: add_location');
  });

  it('refuses a token for another resource, and a plain API token', async () => {
    for (const token of [
      await boundTokenFor(t, person, ['get_private_scope'], 'https://other.example/mcp'),
      await tokenFor(t, person, ['get_private_scope']),
    ]) {
      const other = new Client({ name: 'other', version: '1.0.0' });
      const error = await other
        .connect(
          new StreamableHTTPClientTransport(mcpUrl(), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        )
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(error?.message).toContain('401');
    }
  });

  it('is shown on the Apps page, and revoking it there makes the next call 401', async () => {
    const token = provider.saved!.access_token;
    await page.goto(`${t.baseUrl}/account`);
    const card = page.locator('li.card').filter({ has: page.getByRole('heading', { name: 'Pocket Assistant' }) });
    await expect.poll(() => card.getByText('AI assistant: reaches your Waypost').count()).toBe(1);
    const listed = card.getByRole('list', { name: 'Permissions of Pocket Assistant' });
    expect((await listed.getByRole('listitem').allTextContents()).map((s) => s.trim().replace(/\s+/g, ' '))).toEqual(
      GRANTED.map((name) => `${PERMISSIONS[name]} (${name})`),
    );
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/account`),
      page.getByRole('button', { name: 'Revoke access of Pocket Assistant' }).click(),
    ]);
    await expect.poll(() => page.getByRole('heading', { name: 'Pocket Assistant' }).count()).toBe(0);

    const raw = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The SDK's client sees the 401, finds its refresh token dead too, and must ask the person again.
    const next = await client.listTools().then(
      () => 'answered',
      (error: unknown) => error,
    );
    expect(next).toBeInstanceOf(UnauthorizedError);
  });
});
