// The Services page as a person meets it, in Chromium: Mastodon connected by entering the server
// and signing in there (a loopback Mastodon-compatible server, test/protocols.ts, with its own
// authorization page), ending connected with the token stored; a webhook's signing secret made by
// Waypost and shown once (it signs the test event; gone after the page reloads; a new one on
// request); labels and help in plain words, Bluesky's app passwords explained with a link;
// errors in words beside their field. axe-core at 360 and 1280 px, light and dark.
import { Webhook } from 'standardwebhooks';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { startMastodon } from '../../test/protocols.ts';
import { startReceiver } from '../../test/receivers.ts';
import { axeViolationsLightDark, browserTest, webTestApp } from '../../test/web.ts';
import { openSecrets, secretsKey } from '../services/secrets.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const MASTODON_TOKEN = 'token-given-by-the-server';

const t = browserTest(() => webTestApp({ WAYPOST_OUTBOUND_ALLOW: 'loopback' }), {
  servers: { mastodon: () => startMastodon(MASTODON_TOKEN), receiver: startReceiver },
});

/** A new person, signed in on the Services page, every confirm() accepted. */
async function signedIn(): Promise<Page> {
  const user = await createTestUser(t.database);
  return t.signedIn({ as: user, acceptDialogs: true, path: '/app/services' });
}

const serviceRows = () => t.database.db.selectFrom('services').selectAll().where('type', '=', 'mastodon').execute();

describe('connecting Mastodon from the Services page', () => {
  it("goes through the server's authorization page and ends connected, the token stored", async () => {
    const page = await signedIn();
    await page.getByText('Connect a Mastodon account').click();
    const server = page.getByLabel('Your server', { exact: true });
    // A server that is not one is refused beside the field, in words.
    await server.fill('not a server');
    await page.getByRole('button', { name: 'Connect with Mastodon' }).click();
    await expect
      .poll(() => page.locator('.field-error').allTextContents(), WAIT)
      .toEqual(['must be the address of your server, like mastodon.social']);
    expect(await server.getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolationsLightDark(page)).toEqual([]);

    await server.fill(t.mastodon.url);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(`${t.mastodon.url}/oauth/authorize?`)),
      page.getByRole('button', { name: 'Connect with Mastodon' }).click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Authorize Waypost?');
    expect(t.mastodon.apps.map((app) => [app.client_name, app.redirect_uris])).toEqual([
      ['Waypost', `${t.baseUrl}/app/services/connected`],
    ]);
    expect(t.mastodon.authorizations[0]).toMatchObject({ code_challenge_method: 'S256', client_id: 'client-1' });

    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(`${t.baseUrl}/app/services?connected=`)),
      page.getByRole('button', { name: 'Authorize' }).click(),
    ]);
    const [row] = await serviceRows();
    expect(row).toMatchObject({ name: `@alice@${new URL(t.mastodon.url).host}`, enabled: 1 });
    expect(openSecrets(secretsKey(t.config.secretKey), row!.id, row!.secrets)).toEqual({
      access_token: MASTODON_TOKEN,
    });
    const card = page.locator(`[data-service="${row!.id}"]`);
    expect(await card.locator('h3').innerText()).toBe(`@alice@${new URL(t.mastodon.url).host} Mastodon`);
    expect(await card.locator('.notice').innerText()).toContain('Connected.');
    expect(await page.content()).not.toContain(MASTODON_TOKEN);
    // Its Test signs in with the stored token.
    await card.getByRole('button', { name: /^Test/ }).click();
    await expect
      .poll(() => card.locator('.test-result').textContent(), WAIT)
      .toBe('Test sent: the service answered 200.');
    expect(await card.getByRole('button', { name: /^Sign in again on Mastodon/ }).isVisible()).toBe(true);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.screenshot({ path: '/tmp/waypost-services-connected-360.png', fullPage: true });
  }, 120_000);
});

describe("a webhook's signing secret, made by Waypost", () => {
  it('is shown once, signs the test event, and is gone after the page reloads; a new one on request', async () => {
    const page = await signedIn();
    await page.getByText('Add a webhook').click();
    const form = page.locator('form[data-shows-secret]');
    // Plain labels, no secret to invent.
    expect(await form.locator('label').allInnerTexts()).toEqual(['Name', 'Address that receives your posts']);
    await page.locator('#webhook-name').fill('My site');
    await page.getByLabel('Address that receives your posts').fill('example.com/hook');
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    await expect
      .poll(() => page.locator('.field-error').allTextContents(), WAIT)
      .toEqual(['must be a web address starting with https:// (or http://)']);
    await page.getByLabel('Address that receives your posts').fill(`${t.receiver.url}/hook`);
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    const shown = page.locator('.secret-once code');
    await expect.poll(() => shown.textContent(), WAIT).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const secret = (await shown.textContent())!;
    expect(await page.locator('.secret-once').innerText()).toContain('shown this once');
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.screenshot({ path: '/tmp/waypost-services-secret-1280-dark.png', fullPage: true });

    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Done: show my services' }).click()]);
    expect(await page.content()).not.toContain(secret.slice(6));
    const card = page.locator('[data-service]', { hasText: 'My site' });
    await card.getByRole('button', { name: 'Test My site' }).click();
    await t.receiver.seen(1);
    const event = t.receiver.received[0]!;
    expect(() => new Webhook(secret).verify(event.body, event.headers as Record<string, string>)).not.toThrow();

    await card.getByRole('button', { name: 'New signing secret for My site' }).click();
    await expect.poll(() => card.locator('.secret-once code').textContent(), WAIT).toMatch(/^whsec_/);
    const renewed = (await card.locator('.secret-once code').textContent())!;
    expect(renewed).not.toBe(secret);
    await page.reload();
    expect(await page.content()).not.toContain(renewed.slice(6));
  }, 120_000);
});

describe('the forms, in plain words', () => {
  it('label every field in words, explain app passwords with a link, and pass axe with every form open', async () => {
    const page = await signedIn();
    for (const summary of await page.locator('details.add-service summary').all()) await summary.click();
    const labels = await page.locator('details.add-service label').allInnerTexts();
    for (const raw of ['url', 'secret', 'instance_url', 'access_token', 'app_password', 'endpoint', 'handle']) {
      expect(labels.map((l) => l.trim())).not.toContain(raw);
    }
    expect(labels).toContain('App password');
    const bluesky = page.locator('details.add-service', { hasText: 'Add your Bluesky account' });
    expect(await bluesky.innerText()).toContain('Never enter your account password.');
    expect(
      await bluesky.getByRole('link', { name: 'Settings, Privacy and security, App passwords' }).getAttribute('href'),
    ).toBe('https://bsky.app/settings/app-passwords');
    // The Mastodon form asks for the server, never for a token.
    const connect = page.locator('details.add-service', { hasText: 'Connect a Mastodon account' });
    expect(await connect.locator('input[type="password"]').count()).toBe(0);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: '/tmp/waypost-services-forms-1280.png', fullPage: true });
  }, 120_000);
});
