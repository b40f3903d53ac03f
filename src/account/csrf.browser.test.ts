// Form CSRF from a same-site page, in Chromium (docs/oauth.md "Forms of the web pages"). The
// attacker controls another port of the same host, which is the same site: cookies are not
// port-scoped, so its answers can set Waypost's CSRF cookie to a value it chose. It reads the
// form token that value gets from Waypost's sign-in page (any visitor may), then its page posts
// a form to Waypost with `Referrer-Policy: no-referrer`. Chromium sends `Origin: null` and
// `Sec-Fetch-Site: same-site` with it, and the victim's cookies.
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { formOf } from '../../test/browser.ts';
import { createTestUser } from '../../test/helpers.ts';
import { freePort, listeningTestApp } from '../../test/server.ts';
import { browserTest } from '../../test/web.ts';

const CHOSEN = 'A'.repeat(43); // the attacker's value for the CSRF cookie

/** The fields the attacker's page posts, by path on the attacker's server. */
const attacks = new Map<string, { action: string; fields: Record<string, string> }>();

/** The token Waypost's sign-in page gives a browser whose CSRF cookie is CHOSEN. */
async function tokenForChosenCookie(): Promise<string> {
  const response = await fetch(`${t.baseUrl}/account`, { headers: { cookie: `wp_csrf=${CHOSEN}` } });
  return formOf(await response.text())!.csrf;
}

async function startAttacker() {
  const port = await freePort();
  const server = createServer((request, response) => {
    const attack = attacks.get(request.url ?? '');
    if (!attack) return response.writeHead(404).end();
    const inputs = Object.entries(attack.fields)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
      .join('');
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      // Host-only, no port: the browser sends it to every port of 127.0.0.1, Waypost's too.
      'set-cookie': `wp_csrf=${CHOSEN}; Path=/; HttpOnly; SameSite=Lax`,
      'referrer-policy': 'no-referrer',
    });
    response.end(
      `<!doctype html><title>Free prizes</title>` +
        `<form method="post" action="${attack.action}">${inputs}</form>` +
        `<script>document.forms[0].submit()</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const t = browserTest(() => listeningTestApp(), { servers: { attacker: startAttacker } });

/** Opens the attacker's page and returns the answer to the form it posts to Waypost. */
async function visitAttacker(page: Page, path: string, action: string) {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${t.baseUrl}${action}` && r.request().method() === 'POST'),
    page.goto(`${t.attacker.origin}${path}`),
  ]);
  await page.waitForLoadState();
  const sent = await answer.request().allHeaders();
  return { status: answer.status(), sent, text: await page.locator('main').innerText() };
}

describe('a form posted by a page on another port of the same host', () => {
  it('does not create a tracker in the signed-in victim’s account: 403 and a page that says why', async () => {
    const victim = await createTestUser(t.database);
    const page = await t.signedIn({ as: victim });
    attacks.set('/tracker', {
      action: `${t.baseUrl}/app/trackers`,
      fields: { csrf: await tokenForChosenCookie(), type: 'owntracks', name: 'Planted' },
    });

    const answer = await visitAttacker(page, '/tracker', '/app/trackers');
    // What Chromium sent: the attack as the issue describes it.
    expect(answer.sent.origin).toBe('null');
    expect(answer.sent['sec-fetch-site']).toBe('same-site');
    expect(answer.sent.cookie).toContain(`wp_csrf=${CHOSEN}`);
    expect(answer.sent.cookie).toContain('wp_session=');

    expect(answer.status).toBe(403);
    expect(answer.text).toBe(
      'This form was refused\n\nIt was sent from a page that is not one of this server’s own, so nothing was changed.\n\nOpen the page again and send the form from there.',
    );
    const services = await t.database.db
      .selectFrom('services')
      .select('name')
      .where('user_id', '=', victim.id)
      .execute();
    expect(services).toEqual([]);
    await page.context().close();
  });

  it('does not sign the victim’s browser in to the attacker’s account (login CSRF)', async () => {
    const own = await createTestUser(t.database);
    const page = await (await t.browser.newContext()).newPage();
    attacks.set('/sign-in', {
      action: `${t.baseUrl}/account/sign-in`,
      fields: { csrf: await tokenForChosenCookie(), username: own.username, password: own.password },
    });

    const answer = await visitAttacker(page, '/sign-in', '/account/sign-in');
    expect(answer.sent['sec-fetch-site']).toBe('same-site');
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('This form was refused');
    const sessions = await t.database.db
      .selectFrom('web_sessions')
      .select('user_id')
      .where('user_id', '=', own.id)
      .execute();
    expect(sessions).toEqual([]);
    await page.goto(`${t.baseUrl}/account`);
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await page.context().close();
  });
});
