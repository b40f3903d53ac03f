// The web app's own access to the JSON API: the signed-in session cookie stands for the person
// with every permission, for same-origin requests only, writes only with X-CSRF-Token; a bearer
// token is judged alone (docs/oauth.md "The web app's own access").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInThroughForm } from '../../test/browser.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Signs in through the account form; the browser's cookies and its session's CSRF token. */
const signedIn = (username: string, password: string) => signInThroughForm(t.app, username, password);

describe('the signed-in session on the JSON API', () => {
  it('reads as the person, same-origin only', async () => {
    const alice = await createTestUser(t.database);
    const { cookie } = await signedIn(alice.username, alice.password);
    const read = (headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/settings', headers: { cookie, ...headers } });

    const own = await read({ 'sec-fetch-site': 'same-origin' });
    expect(own.statusCode).toBe(200);
    expect(own.json<{ display_name: string }>().display_name).toBe(alice.displayName);
    expect((await read({})).statusCode).toBe(200); // no Fetch Metadata: an older browser or a script on the page
    for (const site of ['cross-site', 'same-site']) {
      const foreign = await read({ 'sec-fetch-site': site });
      expect(foreign.statusCode).toBe(401);
      expect(foreign.json<{ code: string }>().code).toBe('unauthorized');
    }
    expect(
      (await t.app.inject({ method: 'GET', url: '/settings', headers: { cookie: 'wp_session=unknown' } })).statusCode,
    ).toBe(401);
  });

  it('writes only with the page CSRF token, and a cross-site write never runs', async () => {
    const bob = await createTestUser(t.database);
    const { cookie, csrf } = await signedIn(bob.username, bob.password);
    const write = (name: string, headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/settings',
        headers: { cookie, ...headers },
        payload: { display_name: name },
      });
    const current = async () =>
      (await t.app.inject({ method: 'GET', url: '/settings', headers: { cookie } })).json<{ display_name: string }>()
        .display_name;

    const missing = await write('No token', {});
    expect(missing.statusCode).toBe(403);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    expect(missing.json<{ code: string }>().code).toBe('csrf_failed');
    const wrong = await write('Wrong token', { 'x-csrf-token': 'x'.repeat(43) });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json<{ code: string }>().code).toBe('csrf_failed');
    // Another site's page cannot read the token, and even with it the session does not count.
    const crossSite = await write('Cross site', { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.statusCode).toBe(401);
    const foreignOrigin = await write('Foreign origin', { 'x-csrf-token': csrf, origin: 'https://evil.example' });
    expect(foreignOrigin.statusCode).toBe(403);
    expect(await current()).toBe(bob.displayName);

    const ok = await write('Bob in the browser', { 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' });
    expect(ok.statusCode).toBe(200);
    expect(await current()).toBe('Bob in the browser');
  });

  it('sees private items like a token with every permission', async () => {
    const carol = await createTestUser(t.database);
    const { cookie, csrf } = await signedIn(carol.username, carol.password);
    const posted = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { cookie, 'x-csrf-token': csrf },
      payload: { text: 'only for me', groups: [], scope: 'private' },
    });
    expect(posted.statusCode).toBe(202);
    const list = await t.app.inject({ method: 'GET', url: '/posts/private', headers: { cookie } });
    expect(list.json<{ text: string }[]>().map((p) => p.text)).toEqual(['only for me']);
    const permissions = await t.app.inject({ method: 'GET', url: '/permissions', headers: { cookie } });
    expect(permissions.statusCode).toBe(200);
  });

  it('is ignored when a bearer token is sent: the token alone decides', async () => {
    const dave = await createTestUser(t.database);
    const erin = await createTestUser(t.database);
    const { cookie } = await signedIn(dave.username, dave.password);
    const erinsToken = await tokenFor(t, erin, ['get_settings']);
    const asErin = await t.app.inject({
      method: 'GET',
      url: '/settings',
      headers: { cookie, authorization: `Bearer ${erinsToken}` },
    });
    expect(asErin.json<{ display_name: string }>().display_name).toBe(erin.displayName);
    const narrow = await t.app.inject({
      method: 'GET',
      url: '/posts/private',
      headers: { cookie, authorization: `Bearer ${erinsToken}` },
    });
    expect(narrow.statusCode).toBe(401);
    expect(narrow.json<{ code: string }>().code).toBe('insufficient_scope');
    const bad = await t.app.inject({
      method: 'GET',
      url: '/settings',
      headers: { cookie, authorization: 'Bearer nope' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json<{ code: string }>().code).toBe('invalid_token');
  });

  it('CORS never allows credentials, so another origin cannot read a signed-in answer', async () => {
    const frank = await createTestUser(t.database);
    const { cookie } = await signedIn(frank.username, frank.password);
    const response = await t.app.inject({
      method: 'GET',
      url: '/settings',
      headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });
});
