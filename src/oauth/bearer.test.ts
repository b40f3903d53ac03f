// The permission matrix with real tokens from the OAuth server: one test route per permission,
// called with no token, a bad token, a token without the permission and a token with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { accountTraces } from '../account-traces.ts';
import { deleteAccount } from '../users/account-deletion.logic.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { dropPermission } from './bearer.ts';
import { PERMISSION_NAMES, type Permission } from '../core/permissions.ts';

let t: TestApp;
let user: { id: string };
beforeAll(async () => {
  t = await buildTestApp({
    extend: (app) => {
      for (const permission of PERMISSION_NAMES) {
        app.get(`/test/${permission}`, { config: { permission } }, async (request) => ({
          user: request.auth?.userId,
          permissions: [...(request.auth?.permissions ?? [])].sort(),
        }));
      }
      app.get('/test/any', { config: { auth: 'required' } }, async (request) => ({ user: request.auth?.userId }));
    },
  });
  user = await createTestUser(t.database);
});
afterAll(() => t.close());

const get = (url: string, token?: string) =>
  t.app.inject({ method: 'GET', url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

describe('the permission matrix', () => {
  it.each(PERMISSION_NAMES)('%s', async (permission: Permission) => {
    const url = `/test/${permission}`;

    const none = await get(url);
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="waypost"');

    const bad = await get(url, 'not-a-token');
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer realm="waypost", error="invalid_token"/);

    const others = PERMISSION_NAMES.filter((p) => p !== permission);
    const without = await get(url, await tokenFor(t, user, others));
    expect(without.statusCode).toBe(401);
    expect(without.headers['www-authenticate']).toBe(
      `Bearer realm="waypost", error="insufficient_scope", scope="${permission}"`,
    );
    expect(without.json()).toMatchObject({ status: 401, code: 'insufficient_scope' });

    const withIt = await get(url, await tokenFor(t, user, [permission]));
    expect(withIt.statusCode).toBe(200);
    expect(withIt.json()).toEqual({ user: user.id, permissions: [permission] });
  });
});

describe('tokens from tokenFor', () => {
  it('are stored only as hashes', async () => {
    const token = await tokenFor(t, user, ['get_views']);
    const rows = await t.database.db.selectFrom('oauth_entities').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.some((row) => row.kind === 'AccessToken' && row.id === sha256Hex(token))).toBe(true);
  });

  it('with no permission still authenticate', async () => {
    expect((await get('/test/any', await tokenFor(t, user, []))).json()).toEqual({ user: user.id });
  });

  it("die with their user's account", async () => {
    const leaving = await createTestUser(t.database);
    const token = await tokenFor(t, leaving, ['get_views']);
    expect((await get('/test/get_views', token)).statusCode).toBe(200);
    await deleteAccount(t.database, leaving.id, accountTraces(mediaStorage(t.config)));
    expect((await get('/test/get_views', token)).headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('a token in the query string is not accepted', async () => {
    const token = await tokenFor(t, user, ['get_views']);
    const response = await t.app.inject({ method: 'GET', url: `/test/get_views?access_token=${token}` });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="waypost"');
  });

  it('lose a permission dropped from their grant at once, and die with the grant', async () => {
    const token = await tokenFor(t, user, ['get_settings', 'update_settings']);
    const grantId = (await t.app.oauthProvider.AccessToken.find(token))!.grantId;
    await dropPermission(t.app.oauthProvider, grantId, 'update_settings');
    expect((await get('/test/update_settings', token)).statusCode).toBe(401);
    expect((await get('/test/get_settings', token)).statusCode).toBe(200);
    await t.database.db.deleteFrom('oauth_entities').where('kind', '=', 'Grant').where('id', '=', grantId).execute();
    expect((await get('/test/get_settings', token)).headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });
});
