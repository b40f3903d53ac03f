// The Settings page as HTML (its maps in Chromium: settings.browser.test.ts): the map pages'
// policy, the zones as fields named by the API's error paths, the exact latest point as the
// precision preview's sample, and the grid module served to the browser as the server runs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formOf } from '../../test/browser.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { updateSettings } from '../settings/settings.logic.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } });
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

describe('the Settings page', () => {
  it('has the map policy, the zones as fields, and the exact latest point as the sample', async () => {
    const user = await createTestUser(t.database);
    await insertItems(t.database, 'locations', user.id, [
      { scope: 'public', lat: 48.8, lon: 2.3, time: 1_700_000_000_000 },
      { scope: 'private', lat: 52.520_123, lon: 13.404_567, time: 1_700_000_060_000 },
    ]);
    await updateSettings(t.database.db, user.id, {
      privacyZones: [{ name: 'Home', lat: 52.5, lon: 13.4, radius_m: 300 }],
    });
    const cookie = await signedInCookie(user.username, user.password);
    const page = await t.app.inject({ method: 'GET', url: '/app/settings', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("worker-src 'self'");
    expect(page.headers['referrer-policy']).toBe('strict-origin');
    expect(page.body).toMatch(/<script type="module" src="\/assets\/public\/[\w-]{12}\/settings-map\.js"><\/script>/);
    expect(page.body).toContain('<legend data-legend>Home</legend>');
    expect(page.body).toMatch(/name="privacy_zones\.0\.radius_m"[^>]*value="300"/);
    expect(page.body).toMatch(/name="privacy_zones\.0\.lat"[^>]*value="52\.5"/);
    expect(page.body).toContain('data-sample="13.404567,52.520123"');
    expect(page.body).toContain('data-center="13.4,52.5" data-zoom="13"');
  });

  it('without points or zones: no sample, the world, the empty note shown', async () => {
    const user = await createTestUser(t.database);
    const cookie = await signedInCookie(user.username, user.password);
    const page = await t.app.inject({ method: 'GET', url: '/app/settings', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('data-sample=');
    expect(page.body).not.toContain('data-center=');
    expect(page.body).toMatch(/<p class="empty" id="zones-empty"\s*>No zones yet\.<\/p>/);
  });

  it('serves the server’s grid module to the browser byte for byte', async () => {
    const user = await createTestUser(t.database);
    const cookie = await signedInCookie(user.username, user.password);
    const page = await t.app.inject({ method: 'GET', url: '/app/settings', headers: { cookie } });
    const module = /src="(\/assets\/public\/[\w-]{12}\/)settings-map\.js"/.exec(page.body)![1]!;
    const grid = await t.app.inject({ method: 'GET', url: `${module}precision.js` });
    expect(grid.statusCode).toBe(200);
    expect(grid.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(grid.body).toBe(readFileSync(join(import.meta.dirname, '..', 'privacy', 'grid.js'), 'utf8'));
  });
});
