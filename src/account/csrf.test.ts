// CSRF through HTTP (docs/oauth.md "Forms of the web pages"): a form POST runs only when it comes
// from one of this server's pages (Sec-Fetch-Site, or Origin for browsers without it) and carries
// the token bound to this browser's session (before signing in, to its nonce cookie); cookies
// are `__Host-` over https. The attack in a real browser: csrf.browser.test.ts.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formOf } from '../../test/browser.ts';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { issueSetupToken } from '../users/setup.logic.ts';

const ORIGIN = 'http://waypost.test';
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin', origin: ORIGIN };

/** A browser as inject sees it: its cookies, kept from every answer. */
class Jar {
  cookies = new Map<string, string>();
  private app: FastifyInstance;
  constructor(app: FastifyInstance) {
    this.app = app;
  }
  get header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers = {}) {
    const response = await this.app.inject({
      method,
      url,
      headers: {
        ...(this.cookies.size ? { cookie: this.header } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of [response.headers['set-cookie'] ?? []].flat()) {
      const [pair = ''] = String(line).split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value === '') this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return response;
  }
  /** The token of the first form on `path`. */
  async token(path: string): Promise<string> {
    return formOf((await this.request('GET', path)).body)!.csrf;
  }
}

async function signedIn(app: FastifyInstance, user: { username: string; password: string }) {
  const jar = new Jar(app);
  const csrf = await jar.token('/account');
  const response = await jar.request(
    'POST',
    '/account/sign-in',
    { csrf, username: user.username, password: user.password },
    SAME_ORIGIN,
  );
  expect(response.statusCode).toBe(303);
  return jar;
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_REGISTRATION: 'open' } });
});
afterAll(() => t.close());

const trackers = (userId: string) =>
  t.database.db.selectFrom('services').select(['name', 'ingest_token_hash']).where('user_id', '=', userId).execute();

describe('a form POST', () => {
  it('runs only when Sec-Fetch-Site says same-origin or none, or, without it, the Origin is the server’s', async () => {
    const user = await createTestUser(t.database);
    const jar = await signedIn(t.app, user);
    const csrf = await jar.token('/app/trackers');
    const post = (headers: Record<string, string>, name: string) =>
      jar.request('POST', '/app/trackers', { csrf, type: 'owntracks', name }, headers);
    const refused: [Record<string, string>, string][] = [
      [{ 'sec-fetch-site': 'same-site', origin: 'null' }, 'same-site'],
      [{ 'sec-fetch-site': 'same-site', origin: ORIGIN }, 'same-site, own origin'],
      [{ 'sec-fetch-site': 'cross-site' }, 'cross-site'],
      [{ origin: 'null' }, 'origin null'],
      [{ origin: 'http://waypost.test:8080' }, 'another port'],
      [{ origin: 'http://sub.waypost.test' }, 'a subdomain'],
      [{}, 'neither header'],
    ];
    for (const [headers, name] of refused) {
      const response = await post(headers, name);
      expect([name, response.statusCode]).toEqual([name, 403]);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('<h1>This form was refused</h1>');
      expect(response.body).toContain('It was sent from a page that is not one of this server’s own');
    }
    expect(await trackers(user.id)).toEqual([]);

    const accepted: [Record<string, string>, string][] = [
      [SAME_ORIGIN, 'same-origin'],
      [{ 'sec-fetch-site': 'same-origin', origin: 'null' }, 'same-origin, origin null'],
      [{ 'sec-fetch-site': 'none' }, 'none'],
      [{ origin: ORIGIN }, 'no fetch metadata, own origin'],
    ];
    for (const [headers, name] of accepted) expect([name, (await post(headers, name)).statusCode]).toEqual([name, 201]);
    expect((await trackers(user.id)).map((row) => row.name).sort()).toEqual(accepted.map(([, name]) => name).sort());
  });

  it('needs the token bound to this session: a token minted for another session is refused, the tracker token stays', async () => {
    const victim = await createTestUser(t.database);
    const other = await createTestUser(t.database);
    const victimJar = await signedIn(t.app, victim);
    const otherJar = await signedIn(t.app, other);
    const created = await victimJar.request(
      'POST',
      '/app/trackers',
      { csrf: await victimJar.token('/app/trackers'), type: 'owntracks', name: 'Phone' },
      SAME_ORIGIN,
    );
    expect(created.statusCode).toBe(201);
    const [tracker] = await t.database.db
      .selectFrom('services')
      .select(['id', 'ingest_token_hash'])
      .where('user_id', '=', victim.id)
      .execute();

    const foreign = await otherJar.token('/app/trackers');
    const visitor = await new Jar(t.app).token('/account'); // a token for a nonce, as any visitor gets
    // Even with the nonce cookie of the visitor's token planted beside the victim's session.
    const planted = new Jar(t.app);
    const plantedToken = await planted.token('/account');
    victimJar.cookies.set('wp_csrf', planted.cookies.get('wp_csrf')!);
    for (const csrf of [foreign, visitor, plantedToken, '']) {
      const add = await victimJar.request('POST', '/app/trackers', { csrf, type: 'owntracks', name: 'X' }, SAME_ORIGIN);
      expect(add.statusCode).toBe(403);
      expect(add.body).toContain('<h1>This form has expired</h1>');
      const rotate = await victimJar.request('POST', `/app/trackers/${tracker!.id}/token`, { csrf }, SAME_ORIGIN);
      expect(rotate.statusCode).toBe(403);
    }
    expect(await trackers(victim.id)).toEqual([{ name: 'Phone', ingest_token_hash: tracker!.ingest_token_hash }]);
    expect(await trackers(other.id)).toEqual([]);
    // The session's own token still works.
    const rotated = await victimJar.request(
      'POST',
      `/app/trackers/${tracker!.id}/token`,
      { csrf: await victimJar.token('/app/trackers') },
      SAME_ORIGIN,
    );
    expect(rotated.statusCode).toBe(200);
  });

  it('the API refuses an X-CSRF-Token minted for another session (403 csrf_failed)', async () => {
    const person = await createTestUser(t.database);
    const other = await createTestUser(t.database);
    const jar = await signedIn(t.app, person);
    const otherJar = await signedIn(t.app, other);
    const foreign = await otherJar.token('/app/trackers');
    jar.cookies.set('wp_csrf', otherJar.cookies.get('wp_csrf')!); // planted beside the session
    const post = (csrf: string) =>
      t.app.inject({
        method: 'POST',
        url: '/settings',
        headers: { cookie: jar.header, 'x-csrf-token': csrf, ...SAME_ORIGIN },
        payload: { bio: 'changed' },
      });
    const refused = await post(foreign);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'csrf_failed' });
    expect((await post(await jar.token('/app/trackers'))).statusCode).toBe(200);
  });
});

describe('forms before signing in carry a token bound to the nonce cookie', () => {
  it('sign-in: refused without the token, with another browser’s, or from a same-site page', async () => {
    const user = await createTestUser(t.database);
    const fields = { username: user.username, password: user.password };
    const jar = new Jar(t.app);
    const csrf = await jar.token('/account');
    const other = await new Jar(t.app).token('/account');
    expect((await jar.request('POST', '/account/sign-in', fields, SAME_ORIGIN)).statusCode).toBe(403);
    expect((await jar.request('POST', '/account/sign-in', { ...fields, csrf: other }, SAME_ORIGIN)).statusCode).toBe(
      403,
    );
    const sameSite = { 'sec-fetch-site': 'same-site', origin: 'null' };
    expect((await jar.request('POST', '/account/sign-in', { ...fields, csrf }, sameSite)).statusCode).toBe(403);
    expect(await countRows(t.database, 'web_sessions')).toBeGreaterThan(0); // the other tests' sessions
    const sessions = () =>
      t.database.db.selectFrom('web_sessions').select('user_id').where('user_id', '=', user.id).execute();
    expect(await sessions()).toEqual([]);
    expect((await jar.request('POST', '/account/sign-in', { ...fields, csrf }, SAME_ORIGIN)).statusCode).toBe(303);
    expect(await sessions()).toEqual([{ user_id: user.id }]);
  });

  it('registration and first-run setup: refused without the token or from a same-site page', async () => {
    const jar = new Jar(t.app);
    const fields = { username: 'newcomer', password: 'good password', password_again: 'good password' };
    const csrf = await jar.token('/register');
    expect((await jar.request('POST', '/register', fields, SAME_ORIGIN)).statusCode).toBe(403);
    const sameSite = await jar.request('POST', '/register', { ...fields, csrf }, { 'sec-fetch-site': 'same-site' });
    expect(sameSite.statusCode).toBe(403);
    expect(sameSite.body).toContain('<h1>This form was refused</h1>');
    expect(await t.database.db.selectFrom('users').select('id').where('username', '=', 'newcomer').execute()).toEqual(
      [],
    );
    expect((await jar.request('POST', '/register', { ...fields, csrf }, SAME_ORIGIN)).statusCode).toBe(303); // signed in

    const fresh = await buildTestApp();
    try {
      const token = (await issueSetupToken(fresh.database.db))!;
      const setupJar = new Jar(fresh.app);
      const setupCsrf = await setupJar.token(`/setup?token=${token}`);
      const setup = { ...fields, token, username: 'first' };
      expect((await setupJar.request('POST', '/setup', setup, SAME_ORIGIN)).statusCode).toBe(403);
      const crossSite = { 'sec-fetch-site': 'cross-site' };
      expect((await setupJar.request('POST', '/setup', { ...setup, csrf: setupCsrf }, crossSite)).statusCode).toBe(403);
      expect(await countRows(fresh.database, 'users')).toBe(0);
      expect((await setupJar.request('POST', '/setup', { ...setup, csrf: setupCsrf }, SAME_ORIGIN)).statusCode).toBe(
        303, // signed in, onto the timeline
      );
    } finally {
      await fresh.close();
    }
  });
});

describe('over https', () => {
  it('the cookies are __Host- prefixed, and a cookie without the prefix counts for nothing', async () => {
    const secure = await buildTestApp({ env: { WAYPOST_BASE_URL: 'https://waypost.test' } });
    try {
      const user = await createTestUser(secure.database);
      const jar = new Jar(secure.app);
      const page = await jar.request('GET', '/account');
      expect([page.headers['set-cookie']].flat()).toEqual([
        expect.stringMatching(
          /^__Host-wp_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=86400; Secure$/,
        ),
      ]);
      const headers = { 'sec-fetch-site': 'same-origin', origin: 'https://waypost.test' };
      const csrf = formOf(page.body)!.csrf;
      const signIn = await jar.request(
        'POST',
        '/account/sign-in',
        { csrf, username: user.username, password: user.password },
        headers,
      );
      expect(signIn.statusCode).toBe(303);
      const set = [signIn.headers['set-cookie']].flat().map(String);
      expect(set.map((line) => line.split('=')[0])).toEqual(['__Host-wp_session', '__Host-wp_device']);
      for (const line of set) expect(line).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/);
      expect((await jar.request('GET', '/permissions', undefined, headers)).statusCode).toBe(200);
      // The same session id under the plain name (as an http page on the host could set it) is no session.
      const plain = `wp_session=${jar.cookies.get('__Host-wp_session')!}`;
      const unprefixed = await secure.app.inject({
        method: 'GET',
        url: '/permissions',
        headers: { ...headers, cookie: plain },
      });
      expect(unprefixed.statusCode).toBe(401);
    } finally {
      await secure.close();
    }
  });
});
