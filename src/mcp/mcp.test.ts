// The MCP endpoint without the browser (docs/mcp.md): what a client with no token is told, which
// tokens are good there (only those bound to it) and nowhere else, the stateless transport, the
// limit per grant, and privacy: an assistant without get_private_scope never sees a private
// item, through any tool or resource. The whole OAuth discovery with the consent page is
// mcp.browser.test.ts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { gpsPhoto, uploadMedium } from '../../test/media.ts';
import { listeningTestApp } from '../../test/server.ts';
import { boundTokenFor, tokenFor } from '../../test/tokens.ts';
import { mcpResource } from '../oauth/resources.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
let owner: Awaited<ReturnType<typeof createTestUser>>;
let writer: string;
let resource: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await listeningTestApp({ env: { WAYPOST_MCP_REQUESTS_PER_MINUTE: '1000' } });
  resource = mcpResource(t.baseUrl);
  owner = await createTestUser(t.database, { username: 'ada' });
  writer = await tokenFor(t, owner, ['create_post', 'upload_media', 'write_locations', 'get_private_scope']);
  const post = async (text: string, scope: string) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { authorization: `Bearer ${writer}` },
      payload: { text, scope, groups: [] },
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json<{ id: string }>().id;
  };
  ids.publicPost = await post('Heron by the canal, a public heron', 'public');
  ids.privatePost = await post('Heron nest secret spot, a private heron', 'private');
  const upload = async (scope: string, caption: string) => {
    const response = await uploadMedium(t, writer, await gpsPhoto(), 'heron.jpg', 'image/jpeg', { scope, caption });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string }>().id;
  };
  ids.publicMedium = await upload('public', 'a heron in flight');
  ids.privateMedium = await upload('private', 'a heron at the nest');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const mcpUrl = () => new URL('/mcp', t.baseUrl);

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'test assistant', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** A tool's structured answer (asserting it is not an error). */
async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as T;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const post = (token?: string) =>
  fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(initialize),
  });

describe('who may call', () => {
  it('answers a call without a token 401, naming the protected resource metadata, which names Waypost', async () => {
    const response = await post();
    expect(response.status).toBe(401);
    const metadataUrl = `${t.baseUrl}/.well-known/oauth-protected-resource/mcp`;
    expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="waypost", resource_metadata="${metadataUrl}"`);
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    const body = (await metadata.json()) as Record<string, unknown>;
    expect(body.resource).toBe(`${t.baseUrl}/mcp`);
    expect(body.authorization_servers).toEqual([t.baseUrl]);
    expect(body.bearer_methods_supported).toEqual(['header']);
    const as = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(((await as.json()) as { registration_endpoint: string }).registration_endpoint).toBe(
      `${t.baseUrl}/oauth/register`,
    );
  });

  it('refuses a plain API token and a token for another resource; the REST API refuses an assistant token', async () => {
    const plain = await post(await tokenFor(t, owner, ['get_private_scope']));
    expect(plain.status).toBe(401);
    expect(plain.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(plain.headers.get('www-authenticate')).toContain('resource_metadata=');
    const elsewhere = await post(await boundTokenFor(t, owner, ['get_private_scope'], 'https://elsewhere.example/mcp'));
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const assistant = await boundTokenFor(t, owner, ['get_private_scope'], resource);
    expect((await post(assistant)).status).toBe(200);
    const rest = await t.app.inject({ url: '/posts/private', headers: { authorization: `Bearer ${assistant}` } });
    expect(rest.statusCode).toBe(401);
    expect(rest.json<{ code: string }>().code).toBe('invalid_token');
  });

  it('is stateless: no session id, GET and DELETE are 405, and any request stands alone', async () => {
    const token = await boundTokenFor(t, owner, [], resource);
    const response = await post(token);
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const list = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    const names = ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((x) => x.name);
    expect(names).toEqual(['search', 'get_timeline', 'list_media', 'get_post']);
    for (const method of ['GET', 'DELETE']) {
      const other = await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${token}` } });
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('POST');
    }
  });
});

describe('an assistant without get_private_scope', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(await boundTokenFor(t, owner, ['get_settings', 'create_post'], resource));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists only the tools its grant allows', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'search',
      'get_timeline',
      'list_media',
      'get_post',
      'get_settings',
      'create_post',
    ]);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
    }
    const refused = await client.callTool({ name: 'where_was_i', arguments: { time: '2024-01-01' } }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(refused).toContain('Unknown tool: where_was_i');
  });

  it('never sees a private item: search, timeline, media, post by id and resources', async () => {
    const found = await call<{ results: { id: string }[] }>(client, 'search', { query: 'heron' });
    expect(found.results.map((r) => r.id).sort()).toEqual([ids.publicPost, ids.publicMedium].sort());
    const today = new Date().toISOString().slice(0, 10);
    const day = await call<{ posts: { id: string }[]; media: { id: string }[]; visits?: unknown }>(
      client,
      'get_timeline',
      { start: `${today}T00:00:00Z`, end: new Date(Date.now() + 86_400_000).toISOString() },
    );
    expect(day.posts.map((p) => p.id)).toEqual([ids.publicPost]);
    expect(day.media.map((m) => m.id)).toEqual([ids.publicMedium]);
    expect(day.visits).toBeUndefined();
    const media = await call<{ media: { id: string }[] }>(client, 'list_media');
    expect(media.media.map((m) => m.id)).toEqual([ids.publicMedium]);
    expect((await call<{ media: unknown[] }>(client, 'list_media', { scope: 'private' })).media).toEqual([]);

    const hidden = (await client.callTool({ name: 'get_post', arguments: { id: ids.privatePost } })) as CallToolResult;
    expect(hidden.isError).toBe(true);
    expect(JSON.stringify(hidden.content)).not.toContain('secret spot');
    const shown = await call<{ text: string }>(client, 'get_post', { id: ids.publicPost });
    expect(shown.text).toBe('Heron by the canal, a public heron');

    for (const uri of [`waypost://posts/${ids.privatePost}`, `waypost://media/${ids.privateMedium}`]) {
      await expect(client.readResource({ uri })).rejects.toThrow();
    }
    const read = await client.readResource({ uri: `waypost://posts/${ids.publicPost}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: ids.publicPost });
  });
});

describe('an assistant with get_private_scope', () => {
  it('sees private items too, exactly as the REST API shows them to the owner', async () => {
    const client = await connect(await boundTokenFor(t, owner, ['get_private_scope'], resource));
    const found = await call<{ results: { id: string }[] }>(client, 'search', { query: 'heron', kind: 'posts' });
    const rest = await t.app.inject({
      url: '/search?q=heron&kind=posts&count=20',
      headers: { authorization: `Bearer ${writer}` },
    });
    expect(found.results).toEqual(rest.json());
    const got = await call<Record<string, unknown>>(client, 'get_post', { id: ids.privatePost });
    const byRest = await t.app.inject({
      url: `/posts/id/${ids.privatePost}`,
      headers: { authorization: `Bearer ${writer}` },
    });
    expect(got).toEqual(byRest.json());
    await client.close();
  });
});

describe('limits', () => {
  it('refuses a grant past its requests per minute with 429 and Retry-After; another grant goes on', async () => {
    const limited = await listeningTestApp({ env: { WAYPOST_MCP_REQUESTS_PER_MINUTE: '2' } });
    try {
      const person = await createTestUser(limited.database, { username: 'busy' });
      const token = await boundTokenFor(limited, person, [], mcpResource(limited.baseUrl));
      const send = (bearer: string) =>
        fetch(new URL('/mcp', limited.baseUrl), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${bearer}`,
          },
          body: JSON.stringify(initialize),
        });
      expect((await send(token)).status).toBe(200);
      expect((await send(token)).status).toBe(200);
      const third = await send(token);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await third.json()) as { code: string }).code).toBe('too_many_requests');
      const other = await boundTokenFor(limited, person, [], mcpResource(limited.baseUrl));
      expect((await send(other)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
