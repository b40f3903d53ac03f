// The web app in Chromium, through its pages only: signing in, services and groups, a post with
// a photo delivered to a loopback webhook, scope changes, a video that plays, settings, signing
// out; then axe-core on every page (test/web-pages.ts) at desktop and phone width, signed in
// and out. One browser for the file.
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { startReceiver, type Receiver } from '../../test/receivers.ts';
import { pathOf, WEB_PAGES } from '../../test/web-pages.ts';
import { demoPhoto, demoVideo, launchChromium, seedDemo, signInThroughPage, webTestApp } from '../../test/web.ts';

let t: Awaited<ReturnType<typeof webTestApp>>;
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await webTestApp();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

/** Pages answer at once, but uploads, media jobs and deliveries take a moment on a busy machine. */
const WAIT = { timeout: 20_000, interval: 100 };
const SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;

async function newPage(width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  return page;
}

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
    const page = await newPage();
    await signInThroughPage(page, t.baseUrl, user.username, user.password);

    // A webhook service and a group holding it, through the services page.
    await page.goto(`${t.baseUrl}/app/services`);
    await page.getByText('Add a webhook service').click();
    await page.locator('#webhook-name').fill('Loopback hook');
    await page.locator('#webhook-url').fill(`${receiver.url}/hook`);
    await page.locator('#webhook-secret').fill(SECRET);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Add webhook service' }).click()]);
    await expect
      .poll(() => page.locator('[data-service] h3').allTextContents(), WAIT)
      .toEqual(['Loopback hook webhook']);
    expect(await page.content()).not.toContain(SECRET.slice(6));
    await page.locator('#group-name').fill('Friends');
    await page.getByRole('checkbox', { name: 'Loopback hook' }).check();
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Create group' }).click()]);
    await expect
      .poll(() => page.getByRole('list', { name: 'Your groups' }).locator('h3').allTextContents(), WAIT)
      .toEqual(['Friends']);

    // A post with a photo, sent to the group; its delivery turns delivered without a reload.
    await nav(page, 'Compose').click();
    await page.getByLabel('Text').fill('Hello from the browser');
    expect(await page.locator('#counter').textContent()).toBe('22 / 5000');
    await attach(page, 'hills.jpg', 'image/jpeg', await demoPhoto(), 'Green hills at noon');
    await page.getByRole('checkbox', { name: /Friends/ }).check();
    await page.getByRole('button', { name: 'Post' }).click();
    await expect.poll(() => page.locator('#result .delivery-status').textContent(), WAIT).toBe('delivered');
    await receiver.seen(1);
    expect((JSON.parse(receiver.received[0]!.body) as { data: { text: string } }).data.text).toBe(
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
    await page.getByText('Add a webhook service').click();
    await page.locator('#webhook-name').fill('Broken');
    await page.locator('#webhook-url').fill('not a url');
    await page.locator('#webhook-secret').fill('whsec_short');
    await page.getByRole('button', { name: 'Add webhook service' }).click();
    await expect.poll(() => page.locator('.field-error, .form-error').count(), WAIT).toBeGreaterThan(0);
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

  it('has no serious or critical accessibility violations on any page, at desktop and phone width', async () => {
    const user = await createTestUser(t.database, { password: 'axe test password' });
    const demo = await seedDemo(t, user, receiver.url);
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
