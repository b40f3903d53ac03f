import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { PERMISSION_NAMES, PERMISSIONS } from '../core/permissions.ts';

let t: TestApp;
let user: { id: string };
beforeAll(async () => {
  t = await buildTestApp();
  user = await createTestUser(t.database);
});
afterAll(() => t.close());

const call = (method: 'GET' | 'DELETE', url: string, token?: string) =>
  t.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('GET /permissions', () => {
  it('lists every permission with whether the calling token has it', async () => {
    const token = await tokenFor(t, user, ['create_post', 'get_views']);
    const response = await call('GET', '/permissions', token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(
      PERMISSION_NAMES.map((name) => ({
        name,
        description: PERMISSIONS[name],
        granted: name === 'create_post' || name === 'get_views',
      })),
    );
  });

  it('needs a valid token, but no permission', async () => {
    expect((await call('GET', '/permissions')).headers['www-authenticate']).toBe('Bearer realm="waypost"');
    expect((await call('GET', '/permissions', 'nonsense')).statusCode).toBe(401);
    expect((await call('GET', '/permissions', await tokenFor(t, user, []))).statusCode).toBe(200);
  });
});

describe('DELETE /permissions/:permission', () => {
  it("drops it from the calling token's grant: 204, then 204 again", async () => {
    const token = await tokenFor(t, user, ['create_post', 'get_views']);
    const other = await tokenFor(t, user, ['create_post']); // another grant: untouched
    const first = await call('DELETE', '/permissions/create_post', token);
    expect(first.statusCode).toBe(204);
    expect(first.body).toBe('');
    expect((await call('DELETE', '/permissions/create_post', token)).statusCode).toBe(204);
    const granted = (await call('GET', '/permissions', token)).json<{ name: string; granted: boolean }[]>();
    expect(granted.filter((p) => p.granted).map((p) => p.name)).toEqual(['get_views']);
    const untouched = (await call('GET', '/permissions', other)).json<{ name: string; granted: boolean }[]>();
    expect(untouched.filter((p) => p.granted).map((p) => p.name)).toEqual(['create_post']);
  });

  it('404 for a name the service does not define', async () => {
    const response = await call('DELETE', '/permissions/launch_rockets', await tokenFor(t, user, ['create_post']));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('401 without a token', async () => {
    expect((await call('DELETE', '/permissions/create_post')).statusCode).toBe(401);
  });
});
