// The tools that read a page of the person's items across both scopes (docs/mcp.md): the newest
// ones come from whichever scope holds them, and a filter by kind fills its page from every
// item of that kind, however many of other kinds are newer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { listeningTestApp } from '../../test/server.ts';
import { boundTokenFor } from '../../test/tokens.ts';
import { mcpResource } from '../oauth/resources.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
let client: Client;
const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 4, 1, 12);
const media: Record<string, string[]> = {};

beforeAll(async () => {
  t = await listeningTestApp({ env: { WAYPOST_MCP_REQUESTS_PER_MINUTE: '1000' } });
  const owner = await createTestUser(t.database, { username: 'grace' });
  // Oldest first: three private videos, then twenty public images, then two private images.
  const seed = (scope: 'public' | 'private', from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ scope, time: T0 + (from + i) * HOUR }));
  media.videos = await insertItems(t.database, 'media', owner.id, seed('private', 0, 3));
  await t.database.db.updateTable('media').set({ kind: 'video', mime_type: 'video/mp4' }).execute();
  media.publicImages = await insertItems(t.database, 'media', owner.id, seed('public', 3, 20));
  media.privateImages = await insertItems(t.database, 'media', owner.id, seed('private', 23, 2));
  // A public point two hours before noon on 2 May, a private one a minute before it.
  await insertItems(t.database, 'locations', owner.id, [
    { scope: 'public', time: T0 + 22 * HOUR, lat: 48.8566, lon: 2.3522 },
    { scope: 'private', time: T0 + 24 * HOUR - 60_000, lat: 51.5072, lon: -0.1276 },
  ]);
  const token = await boundTokenFor(t, owner, ['get_private_scope'], mcpResource(t.baseUrl));
  client = new Client({ name: 'test assistant', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', t.baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  await t?.close();
});

async function call<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  return result.structuredContent as T;
}

type MediaPage = { media: { id: string; kind: string }[]; truncated: boolean };

describe('list_media', () => {
  it('gives the newest of both scopes, newest first', async () => {
    const page = await call<MediaPage>('list_media', { count: 4 });
    expect(page.media.map((m) => m.id)).toEqual(
      [...media.privateImages!].reverse().concat(media.publicImages!.slice(-2).reverse()),
    );
    expect(page.truncated).toBe(true);
  });

  it('fills a page of one kind from every item of that kind, however many of others are newer', async () => {
    const two = await call<MediaPage>('list_media', { kind: 'video', count: 2 });
    expect(two.media.map((m) => m.id)).toEqual([media.videos![2], media.videos![1]]);
    expect(two.truncated).toBe(true);
    const all = await call<MediaPage>('list_media', { kind: 'video', count: 5 });
    expect(all.media.map((m) => m.id)).toEqual([...media.videos!].reverse());
    expect(all.truncated).toBe(false);
  });
});

describe('where_was_i', () => {
  it('without a stay, names the point nearest in time, of whichever scope', async () => {
    const where = await call<{ nearest_point: { lat: number; seconds_away: number } }>('where_was_i', {
      time: new Date(T0 + 24 * HOUR).toISOString(),
    });
    expect(where.nearest_point).toMatchObject({ lat: 51.5072, seconds_away: 60 });
  });
});
