// The operator's switch for dynamic client registration (WAYPOST_CLIENT_REGISTRATION).
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const register = (app: TestApp['app']) =>
  app.inject({
    method: 'POST',
    url: '/oauth/register',
    headers: { 'content-type': 'application/json' },
    payload: { client_name: 'App', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' },
  });

describe('dynamic client registration', () => {
  it('is open by default, for public clients', async () => {
    t = await buildTestApp();
    const response = await register(t.app);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ client_name: 'App', token_endpoint_auth_method: 'none' });
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.json()).toMatchObject({ registration_endpoint: 'http://waypost.test/oauth/register' });
  });

  it('can be closed by the operator', async () => {
    t = await buildTestApp({ env: { WAYPOST_CLIENT_REGISTRATION: 'closed' } });
    expect((await register(t.app)).statusCode).toBe(404);
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).not.toHaveProperty('registration_endpoint');
  });
});
