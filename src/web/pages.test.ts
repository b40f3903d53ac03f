import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formOf } from '../../test/browser.ts';
import { listeningTestApp } from '../../test/server.ts';
import { buildTestApp, countRows, createTestUser, type TestApp } from '../../test/helpers.ts';
import { issueSetupToken } from '../users/setup.logic.ts';
import { authenticate } from '../users/users.logic.ts';

/**
 * A browser that opened `url`: its form posts carry the cookie and CSRF token that page gave
 * (bound to the browser, so any form page will do), from this server's own page.
 */
async function browserAt(app: FastifyInstance, url: string) {
  const page = await app.inject({ method: 'GET', url });
  const cookie = [page.headers['set-cookie'] ?? []]
    .flat()
    .map((line) => String(line).split(';')[0])
    .join('; ');
  const { csrf } = formOf(page.body)!;
  return (fields: Record<string, string>) => ({
    payload: new URLSearchParams({ csrf, ...fields }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin' },
  });
}

describe('first run', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('the home page says how to create the first account', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('has no account yet');
    expect(response.body).toContain('setup link');
    expect(response.body).toContain('user add &lt;username&gt;');
    for (const link of ['href="/account"', 'href="/docs"', 'href="/info"']) expect(response.body).toContain(link);
    expect(response.body).not.toContain('href="/register"');
  });

  it('the setup link works once, only with the printed token', async () => {
    const token = await issueSetupToken(t.database.db);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await t.app.inject({ method: 'GET', url: '/setup?token=guess' })).statusCode).toBe(403);
    // The token twice (found by fuzzing: it was a 500) is not the printed link either.
    expect((await t.app.inject({ method: 'GET', url: `/setup?token=${token}&token=${token}` })).statusCode).toBe(403);
    const page = await t.app.inject({ method: 'GET', url: `/setup?token=${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<label for="username">');
    const form = await browserAt(t.app, `/setup?token=${token}`);

    const fields = { token: token!, username: 'first', password: 'first password!', password_again: 'first password!' };
    const wrongToken = await t.app.inject({ method: 'POST', url: '/setup', ...form({ ...fields, token: 'guess' }) });
    expect(wrongToken.statusCode).toBe(403);
    const mismatch = await t.app.inject({
      method: 'POST',
      url: '/setup',
      ...form({ ...fields, password_again: 'other' }),
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('The two passwords differ.');
    expect(await countRows(t.database, 'users')).toBe(0);

    const created = await t.app.inject({ method: 'POST', url: '/setup', ...form(fields) });
    // Signed in at once, onto the timeline.
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/');
    expect(await authenticate(t.database.db, 'first', 'first password!')).toMatchObject({ username: 'first' });
    const session = [created.headers['set-cookie'] ?? []]
      .flat()
      .map((line) => String(line).split(';')[0])
      .find((pair) => pair?.startsWith('wp_session='));
    const timeline = await t.app.inject({ method: 'GET', url: '/', headers: { cookie: session! } });
    expect(timeline.statusCode).toBe(200);
    expect(timeline.body).toContain('<h1>Timeline</h1>');
    expect(timeline.body).toContain('Signed in as <strong>first</strong>');

    const again = await t.app.inject({ method: 'POST', url: '/setup', ...form({ ...fields, username: 'second' }) });
    expect(again.statusCode).toBe(403);
    expect(await countRows(t.database, 'users')).toBe(1);
    expect(await issueSetupToken(t.database.db)).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/' })).body).not.toContain('has no account yet');
  });

  it('escapes what it echoes', async () => {
    const token = 'x"><script>alert(1)</script>';
    const form = await browserAt(t.app, '/account');
    const response = await t.app.inject({
      method: 'POST',
      url: '/setup',
      ...form({ token, username: '<b>', password: 'p', password_again: 'p' }),
    });
    expect(response.statusCode).toBe(403); // the setup link is not valid
    expect(response.body).not.toContain('<script>alert(1)</script>');
    expect(response.body).not.toContain('<b>');
  });

  it('self-registration is off by default', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/register' })).statusCode).toBe(404);
  });
});

describe('setup links over time', () => {
  let t: Awaited<ReturnType<typeof listeningTestApp>>;
  beforeAll(async () => {
    t = await listeningTestApp();
  });
  afterAll(() => t.close());
  const opens = async (token: string) =>
    (await t.app.inject({ method: 'GET', url: `/setup?token=${token}` })).statusCode;

  it('works only for the newest link, never once an account existed, and a new one comes when the last account goes', async () => {
    const earlier = (await issueSetupToken(t.database.db))!;
    const newer = (await issueSetupToken(t.database.db))!; // the next start's link replaces it
    expect(await opens(earlier)).toBe(403);
    expect(await opens(newer)).toBe(200);

    // An account made on the server's command line, then deleted through its page.
    const person = await createTestUser(t.database);
    expect(await opens(newer)).toBe(403);
    const browser = new Browser();
    const signInForm = formOf(await (await browser.request(`${t.baseUrl}/account`)).text())!;
    await browser.request(`${t.baseUrl}${signInForm.action}`, {
      form: { csrf: signInForm.csrf, username: person.username, password: person.password },
    });
    const { csrf } = formOf(await (await browser.request(`${t.baseUrl}/account/delete`)).text())!;
    const done = await browser.request(`${t.baseUrl}/account/delete`, { form: { csrf, password: person.password } });
    expect(done.status).toBe(200);
    const said = await done.text();
    expect(said).toContain('The server printed a new setup link to its log');

    // The server is empty again; the link from before the account stays dead, a new one works.
    expect(await opens(newer)).toBe(403);
    const rows = await t.database.db.selectFrom('setup_tokens').selectAll().execute();
    expect(rows).toHaveLength(1);
    const home = (await t.app.inject({ method: 'GET', url: '/' })).body;
    expect(home).toContain('has no account yet');
    expect(home).toContain('when the last account is');
    expect(home).not.toContain('when it started');
  });
});

describe('self-registration, when the operator opens it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { WAYPOST_REGISTRATION: 'open' } });
  });
  afterAll(() => t.close());

  it('creates accounts and refuses taken names', async () => {
    await createTestUser(t.database, { username: 'taken' });
    expect((await t.app.inject({ method: 'GET', url: '/' })).body).toContain('href="/register"');
    const form = await browserAt(t.app, '/register');
    const fields = { username: 'newcomer', password: 'good password', password_again: 'good password' };
    const registered = await t.app.inject({ method: 'POST', url: '/register', ...form(fields) });
    expect(registered.statusCode).toBe(303); // signed in, onto the timeline
    expect(registered.headers.location).toBe('/');
    const taken = await t.app.inject({ method: 'POST', url: '/register', ...form({ ...fields, username: 'TAKEN' }) });
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain('The username &quot;TAKEN&quot; is taken.');
  });
});
