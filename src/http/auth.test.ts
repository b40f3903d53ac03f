// The bearer hook on its own, with a resolver that knows two tokens. The same checks with real
// OAuth tokens are in the OAuth tests.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import auth, { requirePermission } from './auth.ts';
import type { Auth } from '../core/caller.ts';
import { handleError } from './errors.ts';

const tokens: Record<string, Auth> = {
  'reader-token': {
    userId: 'u1',
    clientId: 'c1',
    grantId: 'g1',
    permissions: new Set(['get_services']),
    username: 'alice',
    expiresAt: Infinity,
  },
  'bare-token': {
    userId: 'u1',
    clientId: 'c1',
    grantId: 'g2',
    permissions: new Set(),
    username: 'alice',
    expiresAt: Infinity,
  },
};

const app = Fastify();
beforeAll(async () => {
  app.setErrorHandler(handleError);
  await app.register(auth, { resolve: async (token) => tokens[token] });
  app.get('/open', async (request) => ({ auth: request.auth ?? null }));
  app.get('/needs-token', { config: { auth: 'required' } }, async (request) => ({ user: request.auth?.userId }));
  app.get('/needs-permission', { config: { permission: 'get_services' } }, async () => ({ ok: true }));
  app.get('/maybe', { config: { auth: 'optional' } }, async (request) => {
    if (request.query && (request.query as { private?: string }).private)
      requirePermission(request, 'get_private_scope');
    return { user: request.auth?.userId ?? null };
  });
  await app.ready();
});
afterAll(() => app.close());

const get = (url: string, token?: string) =>
  app.inject({ method: 'GET', url, headers: token === undefined ? {} : { authorization: token } });

describe('the bearer hook', () => {
  it('leaves routes without auth config alone, even with a bad token', async () => {
    expect((await get('/open', 'Bearer nonsense')).json()).toEqual({ auth: null });
  });

  it('401 with a realm challenge when no token is sent', async () => {
    for (const url of ['/needs-token', '/needs-permission']) {
      const response = await get(url);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="waypost"');
      expect(response.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    }
  });

  it('401 invalid_token for an unknown or malformed token, even where a token is optional', async () => {
    for (const [url, header] of [
      ['/needs-token', 'Bearer unknown'],
      ['/needs-token', 'Basic dXNlcjpwYXNz'],
      ['/needs-token', 'Bearer '],
      ['/maybe', 'Bearer unknown'],
    ] as const) {
      const response = await get(url, header);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="waypost", error="invalid_token"/);
    }
  });

  it('401 insufficient_scope naming the permission', async () => {
    const response = await get('/needs-permission', 'Bearer bare-token');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="waypost", error="insufficient_scope", scope="get_services"',
    );
    expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
  });

  it('lets a token with the permission through', async () => {
    expect((await get('/needs-permission', 'Bearer reader-token')).statusCode).toBe(200);
    expect((await get('/needs-token', 'bearer bare-token')).json()).toEqual({ user: 'u1' });
  });

  it('optional auth: anonymous allowed; a per-object need checked by requirePermission', async () => {
    expect((await get('/maybe')).json()).toEqual({ user: null });
    expect((await get('/maybe', 'Bearer bare-token')).json()).toEqual({ user: 'u1' });
    expect((await get('/maybe?private=1')).statusCode).toBe(401);
    const lacking = await get('/maybe?private=1', 'Bearer bare-token');
    expect(lacking.headers['www-authenticate']).toContain('scope="get_private_scope"');
  });

  it('never reads a token from the query string', async () => {
    const response = await get('/needs-token?access_token=reader-token');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="waypost"');
  });
});
