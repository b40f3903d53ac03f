// The web app's shell: the layout, the static assets and their caching, `/` both ways.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formOf } from '../../test/browser.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function signedInCookie(username: string, password: string): Promise<string> {
  const page = await t.app.inject({ method: 'GET', url: '/account' });
  const form = formOf(page.body)!;
  const cookies = [page.headers['set-cookie'] ?? []].flat().map((line) => line.split(';')[0]!);
  const response = await t.app.inject({
    method: 'POST',
    url: form.action,
    headers: { cookie: cookies.join('; '), origin: 'http://waypost.test' },
    payload: { csrf: form.csrf, username, password },
  });
  return [...cookies, ...[response.headers['set-cookie'] ?? []].flat().map((line) => line.split(';')[0]!)].join('; ');
}

describe('the web app shell', () => {
  it('serves its stylesheet and scripts by version: immutable with the current hash, revalidated without', async () => {
    const home = await t.app.inject({ method: 'GET', url: '/' });
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(home.body)?.[1];
    expect(href).toMatch(/^\/assets\/app\.css\?v=[\w-]{12}$/);
    const versioned = await t.app.inject({ method: 'GET', url: href! });
    expect(versioned.statusCode).toBe(200);
    expect(versioned.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(versioned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const plain = await t.app.inject({ method: 'GET', url: '/assets/app.css' });
    expect(plain.headers['cache-control']).toBe('public, no-cache');
    expect(plain.headers.etag).toBe(`"${href!.split('v=')[1]}"`);
    const again = await t.app.inject({
      method: 'GET',
      url: '/assets/app.css',
      headers: { 'if-none-match': plain.headers.etag! },
    });
    expect(again.statusCode).toBe(304);
    expect((await t.app.inject({ method: 'GET', url: '/assets/nothing.js' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/assets/..%2Fapp.ts' })).statusCode).toBe(404);
  });

  it('has no inline script or style, and a CSP that allows none', async () => {
    const user = await createTestUser(t.database);
    const cookie = await signedInCookie(user.username, user.password);
    const page = await t.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.body).not.toContain('<style');
    expect(page.body).not.toContain(' style=');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).toContain('<a class="skip-link" href="#main">');
    expect(page.body).toMatch(/<meta name="csrf-token" content="[\w-]{43}" \/>/);
  });

  it('answers / with the timeline when signed in and with what the server is for a visitor', async () => {
    const visitor = await t.app.inject({ method: 'GET', url: '/' });
    expect(visitor.body).toContain('This is a Waypost server');
    expect(visitor.body).toContain('href="/account"');
    expect(visitor.body).not.toContain('aria-label="Pages"');
    const user = await createTestUser(t.database);
    const cookie = await signedInCookie(user.username, user.password);
    const page = await t.app.inject({ method: 'GET', url: '/', headers: { cookie } });
    expect(page.body).toContain('<title>Timeline · Waypost</title>');
    expect(page.body).toContain(`Signed in as <strong>${user.username}</strong>`);
    expect(page.body).toMatch(/<a href="\/"\s+aria-current="page">Timeline<\/a>/);
  });
});
