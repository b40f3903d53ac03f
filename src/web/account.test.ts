// The account page and web sessions: sign-in with its limits, CSRF, cookie attributes,
// rotation, sign-out, the list of authorized apps and revoking one.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formOf } from '../../test/browser.ts';
import { buildTestApp, createTestUser } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';
import { buildApp } from '../app.ts';
import { openDatabase } from '../db/database.ts';
import { sha256Hex } from '../lib/crypto.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
beforeAll(async () => {
  t = await listeningTestApp();
});
afterAll(() => t.close());

async function signInPage(browser: Browser) {
  const response = await browser.request(`${t.baseUrl}/account`);
  expect(response.status).toBe(200);
  const form = formOf(await response.text());
  expect(form?.action).toBe('/account/sign-in');
  return form!;
}

async function signIn(browser: Browser, username: string, password: string) {
  const form = await signInPage(browser);
  return browser.request(`${t.baseUrl}${form.action}`, { form: { csrf: form.csrf, username, password } });
}

const sessionCookie = (response: Response) =>
  response.headers.getSetCookie().find((line) => line.startsWith('wp_session='));

describe('signing in on /account', () => {
  it('shows an accessible form, then the timeline; the session cookie is HttpOnly, SameSite=Lax, stored hashed', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    const page = await (await browser.request(`${t.baseUrl}/account`)).text();
    expect(page).toContain('<label for="username">Username</label>');
    expect(page).toContain('<label for="password">Password</label>');

    const response = await signIn(browser, user.username, user.password);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/'); // the timeline, where a person signing in means to be
    const cookie = sessionCookie(response)!;
    expect(cookie).toMatch(/^wp_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(cookie).not.toContain('Secure'); // plain http here; https base URLs add Secure
    const value = /^wp_session=([^;]+)/.exec(cookie)![1]!;
    const rows = await t.database.db.selectFrom('web_sessions').selectAll().execute();
    expect(rows.some((row) => row.id_hash === sha256Hex(value) && row.user_id === user.id)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(value);

    const account = await (await browser.request(`${t.baseUrl}/account`)).text();
    expect(account).toContain(`Signed in as <strong>${user.username}</strong>`);
    expect(account).toContain('You have not authorized any app yet.');
  });

  it('goes back to the page that asked for the sign-in, a path on this server only', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    const asked = await (await browser.request(`${t.baseUrl}/app/settings`)).text();
    const form = formOf(asked)!;
    expect(form.action).toBe('/account/sign-in?next=%2Fapp%2Fsettings');
    const fields = { csrf: form.csrf, username: user.username, password: user.password };
    const back = await browser.request(`${t.baseUrl}${form.action}`, { form: fields });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/app/settings');
    const other = new Browser();
    const fresh = await signInPage(other);
    const elsewhere = await other.request(`${t.baseUrl}/account/sign-in?next=%2F%2Fevil.example%2F`, {
      form: { ...fields, csrf: fresh.csrf },
    });
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get('location')).toBe('/');
  });

  it('rotates the session id on every sign-in', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    const first = sessionCookie(await signIn(browser, user.username, user.password))!;
    // Signed in, the page shows the account; its forms carry the same browser's CSRF token.
    const { csrf } = formOf(await (await browser.request(`${t.baseUrl}/account`)).text())!;
    const again = await browser.request(`${t.baseUrl}/account/sign-in`, {
      form: { csrf, username: user.username, password: user.password },
    });
    expect(again.status).toBe(303);
    const second = sessionCookie(again)!;
    expect(second.split(';')[0]).not.toBe(first.split(';')[0]);
    const old = /^wp_session=([^;]+)/.exec(first)![1]!;
    const found = await t.database.db
      .selectFrom('web_sessions')
      .select('id_hash')
      .where('id_hash', '=', sha256Hex(old))
      .executeTakeFirst();
    expect(found).toBeUndefined();
  });

  it('says the same for an unknown username and a wrong password', async () => {
    const user = await createTestUser(t.database);
    const wrong = await signIn(new Browser(), user.username, 'not the password');
    const unknown = await signIn(new Browser(), 'nobody_here', 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const strip = (body: string) => body.replace(/value="[^"]*"/g, '');
    expect(strip(await wrong.text())).toBe(strip(await unknown.text()));
  });

  it('refuses a form without the CSRF token or from another origin', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    const form = await signInPage(browser);
    const fields = { username: user.username, password: user.password };
    const missing = await browser.request(`${t.baseUrl}/account/sign-in`, { form: fields });
    expect(missing.status).toBe(403);
    const forged = await browser.request(`${t.baseUrl}/account/sign-in`, { form: { ...fields, csrf: 'x'.repeat(43) } });
    expect(forged.status).toBe(403);
    const crossSite = await browser.request(`${t.baseUrl}/account/sign-in`, {
      form: { ...fields, csrf: form.csrf },
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    const fetchMetadata = await browser.request(`${t.baseUrl}/account/sign-in`, {
      form: { ...fields, csrf: form.csrf },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(fetchMetadata.status).toBe(403);
    // Chromium sends Origin: null under Referrer-Policy: no-referrer, from any page: alone it
    // proves nothing (refused); with Sec-Fetch-Site: same-origin the form is our own.
    const nullOrigin = await browser.request(`${t.baseUrl}/account/sign-in`, {
      form: { ...fields, csrf: form.csrf },
      origin: 'null',
    });
    expect(nullOrigin.status).toBe(403);
    const ownNullOrigin = await browser.request(`${t.baseUrl}/account/sign-in`, {
      form: { ...fields, csrf: form.csrf },
      origin: 'null',
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(ownNullOrigin.status).toBe(303);
    const other = new Browser(); // another browser's token does not fit this one's cookie
    await signInPage(other);
    expect((await other.request(`${t.baseUrl}/account/sign-in`, { form: { ...fields, csrf: form.csrf } })).status).toBe(
      403,
    );
  });

  it('the pages deny framing and escape what they echo', async () => {
    const browser = new Browser();
    const response = await browser.request(`${t.baseUrl}/account`);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    const echoed = await signIn(browser, '"><script>alert(1)</script>', 'whatever password');
    const body = await echoed.text();
    expect(body).not.toContain('<script>alert(1)</script>');
    expect(body).toContain('&quot;&gt;&lt;script&gt;');
  });
});

describe('limits on sign-in (docs/sign-in-limits.md; the rules in full: sign-in-limits.test.ts)', () => {
  /** Signs in through inject from a given client address: the page (CSRF cookie and token), then the form. */
  async function signInFrom(
    app: FastifyInstance,
    remoteAddress: string,
    username: string,
    password: string,
    headers: Record<string, string> = {},
  ) {
    const page = await app.inject({ method: 'GET', url: '/account', remoteAddress, headers });
    const cookie = [page.headers['set-cookie'] ?? []]
      .flat()
      .map((line) => String(line).split(';')[0])
      .join('; ');
    const form = formOf(page.body)!;
    return app.inject({
      method: 'POST',
      url: form.action,
      remoteAddress,
      headers: {
        ...headers,
        cookie,
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      payload: new URLSearchParams({ csrf: form.csrf, username, password }).toString(),
    });
  }

  it('a burst of parallel wrong passwords: exactly 5 are checked, the rest get 429 with Retry-After on the sign-in page; then the right password does not sign in', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    const form = await signInPage(browser);
    const post = (password: string) =>
      browser.request(`${t.baseUrl}${form.action}`, { form: { csrf: form.csrf, username: user.username, password } });
    const burst = await Promise.all(Array.from({ length: 60 }, () => post('wrong password')));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(55);
    const refused = burst.find((r) => r.status === 429)!;
    const retryAfter = refused.headers.get('retry-after')!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(900);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await refused.text();
    expect(page).toMatch(/<p class="error" role="alert">Too many sign-in attempts\. Try again in \d+ minutes?\.<\/p>/);
    expect(formOf(page)?.action).toBe('/account/sign-in'); // the form is there to try again
    expect(page).toContain(`value="${user.username}"`);

    const again = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(i === 100 ? user.password : 'wrong password')),
    );
    expect(again.map((r) => r.status)).toEqual(Array<number>(200).fill(429));
    const sessions = await t.database.db
      .selectFrom('web_sessions')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions).toEqual([]);
  });

  it('two app instances on one database (two connections, or two pools) share the count', async () => {
    const database = t.databaseUrl
      ? openDatabase({ url: t.databaseUrl, poolSize: 4 })
      : openDatabase({ sqlitePath: join(t.config.dataDir, 'waypost.db') });
    const second = await buildApp({ config: t.config, database });
    try {
      await second.ready();
      const user = await createTestUser(t.database);
      const burst = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          signInFrom(i % 2 ? second : t.app, '192.0.2.40', user.username, 'wrong password'),
        ),
      );
      const statuses = burst.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(35);
      for (const app of [t.app, second]) {
        expect((await signInFrom(app, '192.0.2.40', user.username, user.password)).statusCode).toBe(429);
      }
    } finally {
      await second.close();
      await database.close();
    }
  });

  it('a name that does not exist is limited like one that does', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await signIn(new Browser(), 'no_such_user_x', 'anything at all')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('behind a proxy without the trusted-proxy setting (one address for everyone), twenty failures do not stop other sign-ins', async () => {
    const victim = await createTestUser(t.database);
    const neighbour = await createTestUser(t.database);
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await signIn(new Browser(), victim.username, 'guess')).status);
    expect(statuses).toEqual([...Array<number>(5).fill(401), ...Array<number>(15).fill(429)]);
    // Another account from the same (shared) address signs in.
    expect((await signIn(new Browser(), neighbour.username, neighbour.password)).status).toBe(303);
    // The attacked account signs in from another address. (From the shared address it waits for
    // the window: that key is the attacker's as much as the person's; WAYPOST_TRUST_PROXY fixes it.)
    expect((await signInFrom(t.app, '198.51.100.23', victim.username, victim.password)).statusCode).toBe(303);
    // An untrusted X-Forwarded-For changes nothing.
    const forwarded = await signInFrom(t.app, '127.0.0.1', victim.username, victim.password, {
      'x-forwarded-for': '198.51.100.24',
    });
    expect(forwarded.statusCode).toBe(429);
  });

  it("a browser that signed in before keeps getting in while strangers at the proxy's address fail", async () => {
    const person = await createTestUser(t.database);
    const own = new Browser();
    const first = await signIn(own, person.username, person.password);
    expect(first.status).toBe(303);
    const device = first.headers.getSetCookie().find((line) => line.startsWith('wp_device='))!;
    expect(device).toMatch(
      /^wp_device=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=31536000$/,
    );
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await signIn(new Browser(), person.username, 'guess')).status);
    expect(statuses).toEqual([...Array<number>(5).fill(401), ...Array<number>(15).fill(429)]);
    expect((await signIn(new Browser(), person.username, person.password)).status).toBe(429);
    // The person's browser (signed in still, so its page has no sign-in form; its token will do).
    const { csrf } = formOf(await (await own.request(`${t.baseUrl}/account`)).text())!;
    const again = await own.request(`${t.baseUrl}/account/sign-in`, {
      form: { csrf, username: person.username, password: person.password },
    });
    expect(again.status).toBe(303);
  });

  it('with WAYPOST_TRUST_PROXY=true each visitor counts by the address the proxy forwards', async () => {
    const proxied = await buildTestApp({ env: { WAYPOST_TRUST_PROXY: 'true' } });
    try {
      const user = await createTestUser(proxied.database);
      const from = (address: string, password: string) =>
        signInFrom(proxied.app, '127.0.0.1', user.username, password, { 'x-forwarded-for': address });
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await from('203.0.113.1', 'guess')).statusCode);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      expect((await from('203.0.113.2', user.password)).statusCode).toBe(303);
    } finally {
      await proxied.close();
    }
  });
});

describe('authorized apps', () => {
  it('are listed with their permissions and can be revoked, which ends their tokens', async () => {
    const user = await createTestUser(t.database);
    const token = await tokenFor(t, user, ['create_post', 'get_views']);
    const browser = new Browser();
    expect((await signIn(browser, user.username, user.password)).status).toBe(303);
    const page = await (await browser.request(`${t.baseUrl}/account`)).text();
    expect(page).toContain('<h3>Test client</h3>');
    expect(page).toContain('Create posts and send them to your service groups');
    expect(page).toContain('<code>get_views</code>');
    const form = formOf(page.slice(page.indexOf('<ul class="apps">')))!;
    expect(form.action).toMatch(/^\/account\/apps\/.+\/revoke$/);

    const api = () => fetch(`${t.baseUrl}/permissions`, { headers: { authorization: `Bearer ${token}` } });
    expect((await api()).status).toBe(200);
    const revoked = await browser.request(`${t.baseUrl}${form.action}`, { form: { csrf: form.csrf } });
    expect(revoked.status).toBe(303);
    expect((await api()).status).toBe(401);
    expect(await (await browser.request(`${t.baseUrl}/account`)).text()).toContain(
      'You have not authorized any app yet.',
    );
  });

  it("cannot revoke another person's app", async () => {
    const owner = await createTestUser(t.database);
    const intruder = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['create_post']);
    const grantId = (await t.app.oauthProvider.AccessToken.find(token))!.grantId;
    const browser = new Browser();
    await signIn(browser, intruder.username, intruder.password);
    const form = formOf(await (await browser.request(`${t.baseUrl}/account`)).text())!;
    const response = await browser.request(`${t.baseUrl}/account/apps/${grantId}/revoke`, {
      form: { csrf: form.csrf },
    });
    expect(response.status).toBe(404);
    expect((await fetch(`${t.baseUrl}/permissions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
  });
});

describe('signing out', () => {
  it('ends the session; the API honours the session cookie only until then, and never for another site', async () => {
    const user = await createTestUser(t.database);
    const browser = new Browser();
    await signIn(browser, user.username, user.password);
    const cookie = (await browser.request(`${t.baseUrl}/account`)).ok;
    expect(cookie).toBe(true);
    expect((await browser.request(`${t.baseUrl}/permissions`)).status).toBe(200);
    const crossSite = { headers: { 'sec-fetch-site': 'cross-site' } };
    expect((await browser.request(`${t.baseUrl}/permissions`, crossSite)).status).toBe(401);

    const page = await (await browser.request(`${t.baseUrl}/account`)).text();
    const signOut = formOf(page.slice(page.indexOf('action="/account/sign-out"') - 30))!;
    expect(signOut.action).toBe('/account/sign-out');
    const response = await browser.request(`${t.baseUrl}/account/sign-out`, { form: { csrf: signOut.csrf } });
    expect(response.status).toBe(303);
    expect(sessionCookie(response)).toMatch(/^wp_session=; .*Max-Age=0/);
    expect(formOf(await (await browser.request(`${t.baseUrl}/account`)).text())?.action).toBe('/account/sign-in');
    expect((await browser.request(`${t.baseUrl}/permissions`)).status).toBe(401);
    expect(await t.database.db.selectFrom('web_sessions').selectAll().where('user_id', '=', user.id).execute()).toEqual(
      [],
    );
  });
});

describe('cookies over https', () => {
  it('are Secure and __Host- prefixed when the server is served over https (the rest: src/account/csrf.test.ts)', async () => {
    const secure = await buildTestApp({ env: { WAYPOST_BASE_URL: 'https://waypost.test' } });
    try {
      const response = await secure.app.inject({ method: 'GET', url: '/account' });
      expect([response.headers['set-cookie']].flat()[0]).toMatch(
        /^__Host-wp_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+; Secure$/,
      );
    } finally {
      await secure.close();
    }
  });
});
