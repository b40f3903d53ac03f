// The web app in Chromium, through its pages only: signing in, services and groups, a post with
// a photo delivered to a loopback webhook, scope changes, a video that plays, settings, signing
// out; then axe-core on every page (test/web-pages.ts) at desktop and phone width, signed in
// and out. One browser for the file.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { tokenFor } from '../../test/tokens.ts';
import { newId } from '../lib/ids.ts';
import { secretsKey, sealSecrets } from '../services/secrets.ts';
import { startReceiver } from '../../test/receivers.ts';
import { pathOf, WEB_PAGES } from '../../test/web-pages.ts';
import { browserTest, demoPhoto, demoVideo, seedDemo, signInThroughPage, webTestApp } from '../../test/web.ts';

const t = browserTest(() => webTestApp(), { servers: { receiver: startReceiver } });

/** Pages answer at once, but uploads, media jobs and deliveries take a moment on a busy machine. */
const WAIT = { timeout: 20_000, interval: 100 };
const SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;

async function newPage(width = 1280): Promise<Page> {
  const context = await t.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  return page;
}

/** A page `width` px wide signed in as `as`, every confirm() accepted. */
const signedIn = (as: { username: string; password: string }, width = 1280) =>
  t.signedIn({ as, context: { viewport: { width, height: 900 } }, acceptDialogs: true });

/** What the test reads of a <video> (the DOM types are not in this project's lib). */
interface VideoLike {
  play(): Promise<void>;
  readyState: number;
  currentTime: number;
}

/** A link in the bar of pages. */
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true });

/** Attaches a file on the compose page and waits until it is uploaded. */
async function attach(page: Page, name: string, mimeType: string, buffer: Buffer, caption: string) {
  await page.locator('#files').setInputFiles({ name, mimeType, buffer });
  await page.getByLabel(`Caption of ${name}`).fill(caption);
  await expect.poll(() => page.locator('.attachment [role="status"]').last().textContent(), WAIT).toBe('Uploaded.');
}

describe('the web app in a browser', () => {
  it('takes a person from signing in to a delivered post with a photo, scope changes, a video, settings and signing out', async () => {
    const user = await createTestUser(t.database);
    const page = await signedIn(user);

    // A webhook service and a group holding it, through the services page.
    await page.goto(`${t.baseUrl}/app/services`);
    await page.getByText('Add a webhook').click();
    await page.locator('#webhook-name').fill('Loopback hook');
    await page.locator('#webhook-url').fill(`${t.receiver.url}/hook`);
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    // The signing secret Waypost made, shown once; then the page as it now is.
    await expect.poll(() => page.locator('.secret-once code').textContent(), WAIT).toMatch(/^whsec_/);
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Done: show my services' }).click()]);
    await expect
      .poll(() => page.locator('[data-service] h3').allTextContents(), WAIT)
      .toEqual(['Loopback hook Webhook']);
    await page.locator('#group-name').fill('Friends');
    await page.getByRole('checkbox', { name: 'Loopback hook' }).check();
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Create group' }).click()]);
    await expect
      .poll(() => page.getByRole('list', { name: 'Your groups' }).locator('h3').allTextContents(), WAIT)
      .toEqual(['Friends']);

    // A post with a photo, sent to the group; its delivery turns delivered without a reload.
    await nav(page, 'Compose').click();
    await page.getByLabel('Text').fill('Hello from the browser');
    // The page's module counts when it runs and on every input: the text may be filled before it runs.
    await expect.poll(() => page.locator('#counter').textContent(), WAIT).toBe('22 / 5000');
    await attach(page, 'hills.jpg', 'image/jpeg', await demoPhoto(), 'Green hills at noon');
    await page.getByRole('checkbox', { name: /Friends/ }).check();
    await page.getByRole('button', { name: 'Post' }).click();
    await expect.poll(() => page.locator('#result .delivery-status').textContent(), WAIT).toBe('delivered');
    await t.receiver.seen(1);
    expect((JSON.parse(t.receiver.received[0]!.body) as { data: { text: string } }).data.text).toBe(
      'Hello from the browser',
    );

    // On the timeline, with the photo's caption as its alt text; then made private.
    await nav(page, 'Timeline').click();
    const post = page.locator('article[data-kind="post"]', { hasText: 'Hello from the browser' });
    await expect.poll(() => post.locator('img').getAttribute('alt'), WAIT).toBe('Green hills at noon');
    const publicTexts = async () => {
      const response = await fetch(`${t.baseUrl}/posts/public/${user.username}`);
      return ((await response.json()) as { text: string }[]).map((p) => p.text);
    };
    expect(await publicTexts()).toEqual(['Hello from the browser']);
    await Promise.all([page.waitForEvent('load'), post.getByRole('button', { name: /^Make private/ }).click()]);
    await expect.poll(() => post.locator('.badge').textContent(), WAIT).toBe('Private');
    expect(await publicTexts()).toEqual([]);

    // A video, uploaded with a private post, plays in the viewer.
    await nav(page, 'Compose').click();
    await page.getByLabel('Text').fill('A clip');
    await page.getByLabel('Private: only you').check();
    await attach(page, 'clip.webm', 'video/webm', await demoVideo(), 'Test pattern');
    await page.getByRole('button', { name: 'Post' }).click();
    await expect.poll(() => page.locator('#result li').textContent(), WAIT).toBe('Sent to no service.');
    await nav(page, 'Media').click();
    await page.getByRole('link', { name: /Video/ }).click();
    const video = page.locator('video');
    await video.evaluate((element) => (element as unknown as VideoLike).play());
    await expect
      .poll(
        () =>
          video.evaluate((element) => {
            const v = element as unknown as VideoLike;
            return [v.readyState >= 2, v.currentTime > 0.3];
          }),
        WAIT,
      )
      .toEqual([true, true]);

    // A setting and its effect: the time zone the timeline groups by.
    await nav(page, 'Settings').click();
    await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await page.getByLabel('Display name').fill('Browser Person');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('[role="status"]').textContent(), WAIT).toBe('Saved.');
    await nav(page, 'Timeline').click();
    expect(await page.locator('main > p.meta').textContent()).toContain('Times are in Asia/Tokyo');

    // A form that fails says why beside the field, not on an error page.
    await page.goto(`${t.baseUrl}/app/services`);
    await page.getByText('Add a webhook').click();
    await page.locator('#webhook-name').fill('Broken');
    await page.locator('#webhook-url').fill('not a url');
    await page.getByRole('button', { name: 'Add Webhook' }).click();
    await expect
      .poll(() => page.locator('.field-error').allTextContents(), WAIT)
      .toEqual(['must be a web address starting with https:// (or http://)']);
    expect(page.url()).toBe(`${t.baseUrl}/app/services`);

    // The service goes again.
    await page.goto(`${t.baseUrl}/app/services`);
    await page.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.locator('[data-service]').count(), WAIT).toBe(0);
    await page.reload();
    expect(await page.locator('[data-service]').count()).toBe(0);

    // Signing out: the pages ask to sign in again and the API no longer answers as the person.
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign out' }).first().click()]);
    await page.goto(`${t.baseUrl}/app/compose`);
    expect(await page.locator('h1').textContent()).toBe('Sign in to Waypost');
    const status = await page.evaluate(async () => (await fetch('/settings')).status);
    expect(status).toBe(401);
  }, 120_000);

  it('services: switched off and on, a webhook secret changed, a restored service given its secrets; media load more; axe', async () => {
    const user = await createTestUser(t.database, { password: 'services test password' });
    const token = await tokenFor(t, user, ['create_service', 'get_services', 'manage_groups', 'upload_media']);
    const api = async <T>(method: 'GET' | 'POST', url: string, payload?: unknown) => {
      const response = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.json<T>() };
    };
    const hook = (
      await api<{ id: string }>('POST', '/services', {
        type: 'webhook',
        name: 'Blog hook',
        config: { url: `${t.receiver.url}/blog`, secret: SECRET },
      })
    ).body;
    // As a restore from an export leaves it: disabled, without its secret.
    const restored = newId();
    const now = Date.now();
    await t.database.db
      .insertInto('services')
      .values({
        id: restored,
        user_id: user.id,
        type: 'webhook',
        name: 'Restored hook',
        enabled: 0,
        config: JSON.stringify({ url: `${t.receiver.url}/restored` }),
        secrets: sealSecrets(secretsKey(t.config.secretKey), restored, {}),
        status: 'error',
        last_error: 'HTTP 500 from the old server',
        created_at: now,
        updated_at: now,
        ingest_token_hash: null,
      })
      .execute();
    const stored = async (id: string) => (await api<{ enabled: boolean }[]>('GET', `/services/${id}`)).body[0]!;

    const page = await signedIn(user);
    await page.goto(`${t.baseUrl}/app/services`);
    const card = page.locator(`[data-service="${hook.id}"]`);

    // Off and on again with the switch, without a reload.
    const toggle = card.getByRole('switch', { name: 'Enabled' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await expect
      .poll(() => card.locator('[role="status"]').first().textContent(), WAIT)
      .toBe('Off: it gets nothing new.');
    expect(await stored(hook.id)).toMatchObject({ enabled: false });
    await toggle.check();
    await expect.poll(() => card.locator('[role="status"]').first().textContent(), WAIT).toBe('On: it gets new posts.');
    expect(await stored(hook.id)).toMatchObject({ enabled: true });

    // A wrong secret is refused beside its field; a good one is saved and signs the next test event.
    await card.getByText('Edit').click();
    const secretField = card.getByLabel('Signing secret (leave empty to keep the one you have)');
    expect(await secretField.getAttribute('type')).toBe('password');
    expect(await secretField.inputValue()).toBe('');
    expect(await card.getByLabel('Address that receives your posts').inputValue()).toBe(`${t.receiver.url}/blog`);
    await secretField.fill('whsec_short');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(() => card.locator('.field-error').allTextContents(), WAIT)
      .toEqual(['must be whsec_ followed by 32 to 88 base64 letters; or leave it out and Waypost makes one for you']);
    expect(page.url()).toBe(`${t.baseUrl}/app/services`);
    const newSecret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    await secretField.fill(newSecret);
    await Promise.all([page.waitForEvent('load'), card.getByRole('button', { name: 'Save changes' }).click()]);
    expect(await page.content()).not.toContain(newSecret.slice(6));
    t.receiver.received.length = 0;
    await page.locator(`[data-service="${hook.id}"]`).getByRole('button', { name: 'Test Blog hook' }).click();
    await t.receiver.seen(1);
    const { Webhook } = await import('standardwebhooks');
    const event = t.receiver.received[0]!;
    expect(() => new Webhook(newSecret).verify(event.body, event.headers as Record<string, string>)).not.toThrow();

    // The restored service says what it needs, with its last error; given the secret, it is enabled.
    const back = page.locator(`[data-service="${restored}"]`);
    expect(await back.locator('.warning').textContent()).toContain('Needs its secrets again (Signing secret)');
    expect(await back.locator('.error').textContent()).toBe('Last error: HTTP 500 from the old server');
    expect(await back.getByRole('switch', { name: 'Enabled' }).isDisabled()).toBe(true);
    await back
      .getByLabel('Signing secret (needed again: the one your receiver has, or make a new one below)')
      .fill(SECRET);
    await Promise.all([page.waitForEvent('load'), back.getByRole('button', { name: 'Save and enable' }).click()]);
    expect(await stored(restored)).toMatchObject({ enabled: true });
    expect(await stored(restored)).not.toHaveProperty('missing_secrets');
    expect(await page.locator(`[data-service="${restored}"] .warning`).count()).toBe(0);
    await page.screenshot({ path: '/tmp/waypost-services-1280.png', fullPage: true });

    // Media: more than a page, public and private; "load more" brings each in once, in order.
    const uploaded = await uploadMedium(t, token, await demoPhoto(120), 'field.jpg', 'image/jpeg', { scope: 'public' });
    expect(uploaded.statusCode).toBe(201);
    const first = await t.database.db
      .selectFrom('media')
      .selectAll()
      .where('id', '=', uploaded.json<{ id: string }>().id)
      .executeTakeFirstOrThrow();
    const copies = Array.from({ length: 75 }, (_, i) => ({
      ...first,
      id: newId(),
      scope: i % 10 === 0 ? ('public' as const) : ('private' as const),
      time: first.time - (i + 1) * 60_000,
      created_at: first.created_at + i + 1,
    }));
    await t.database.db.insertInto('media').values(copies).execute();
    await page.goto(`${t.baseUrl}/app/media`);
    const tiles = page.locator('ul.grid > li a');
    const shown = await tiles.count();
    expect(shown).toBeLessThan(76);
    for (let round = 0; round < 5 && (await page.locator('a[data-more]').count()) > 0; round += 1) {
      const before = await tiles.count();
      await page.locator('a[data-more]').click();
      await expect.poll(() => tiles.count(), WAIT).toBeGreaterThan(before);
    }
    expect(await page.locator('a[data-more]').count()).toBe(0);
    const hrefs = await Promise.all((await tiles.all()).map((link) => link.getAttribute('href')));
    const expected = [first, ...copies].map((m) => `/app/media/${m.id}`);
    expect(hrefs).toEqual(expected);
    await page.context().close();

    // The changed pages, with a restored service among them, at desktop and phone width.
    await t.database.db.updateTable('services').set({ enabled: 0 }).where('id', '=', restored).execute();
    await t.database.db
      .updateTable('services')
      .set({ secrets: sealSecrets(secretsKey(t.config.secretKey), restored, {}) })
      .where('id', '=', restored)
      .execute();
    const found: string[] = [];
    for (const width of [1280, 360]) {
      const phone = await signedIn(user, width);
      for (const path of ['/app/services', '/app/media', '/', '/app/views']) {
        await phone.goto(`${t.baseUrl}${path}`);
        for (const summary of await phone.locator('.service details:not([open]) summary').all()) await summary.click();
        const { violations } = await new AxeBuilder({ page: phone }).analyze();
        for (const v of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
          found.push(`${path} at ${width}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
        }
      }
      await phone.goto(`${t.baseUrl}/app/services`);
      await phone.screenshot({ path: `/tmp/waypost-services-${width}-restored.png`, fullPage: true });
      await phone.context().close();
    }
    expect(found).toEqual([]);
  }, 180_000);

  it('has no serious or critical accessibility violations on any page, at desktop and phone width', async () => {
    const user = await createTestUser(t.database, { password: 'axe test password' });
    const demo = await seedDemo(t, user, t.receiver.url);
    const found: string[] = [];
    for (const width of [1280, 360]) {
      for (const signedIn of [false, true]) {
        const page = await newPage(width);
        if (signedIn) await signInThroughPage(page, t.baseUrl, user.username, 'axe test password');
        for (const entry of WEB_PAGES.filter((p) => !p.visitor === signedIn)) {
          await page.goto(`${t.baseUrl}${pathOf(entry, demo)}`);
          const { violations } = await new AxeBuilder({ page }).analyze();
          for (const v of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
            found.push(`${entry.name} at ${width}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
          }
        }
        await page.context().close();
      }
    }
    expect(found).toEqual([]);
  }, 300_000);
});
