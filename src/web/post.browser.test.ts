// A delivery the target answered 500, in Chromium: it is failed with the target's answer as its
// error (one attempt allowed here), shown with Retry on the timeline and on the post's own page
// (/app/posts/<id>: the post, its photo, each delivery's state, tries and error); Retry on the
// page sends it again and the page then says delivered with a link to it; the text is edited and
// the post deleted from the page. axe-core on the post page and the timeline at 360 and 1280 px,
// light and dark: no violation of any impact.
import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { startReceiver } from '../../test/receivers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { axeViolationsLightDark, browserTest, demoPhoto, personWithApi, webTestApp } from '../../test/web.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const SECRET = `whsec_${Buffer.alloc(24, 4).toString('base64')}`;

// One attempt: an answer of 500 fails the delivery at once instead of waiting for a retry.
const t = browserTest(() => webTestApp({ WAYPOST_DELIVERY_MAX_ATTEMPTS: '1' }), {
  servers: { receiver: startReceiver },
});

describe("a failed delivery on the timeline and on the post's page", () => {
  it('shows the error and Retry in both places; Retry delivers it; the page edits and deletes the post', async () => {
    const { receiver } = t;
    receiver.answer = (_request, response) =>
      response.writeHead(500, { 'content-type': 'text/plain' }).end('Internal trouble');
    const { user, token, call } = await personWithApi(t, [
      'create_service',
      'manage_groups',
      'create_post',
      'upload_media',
    ]);
    const service = await call('/services', {
      type: 'webhook',
      name: 'Home hook',
      config: { url: `${receiver.url}/hook`, secret: SECRET },
    });
    const group = await call('/services/groups', { name: 'Home', service_ids: [service.id] });
    const photo = await uploadMedium(t, token, await demoPhoto(40), 'dunes.jpg', 'image/jpeg', {
      scope: 'public',
      caption: 'Dunes at dusk',
    });
    const post = await call('/posts', {
      text: 'Evening on the dunes',
      groups: [group.id],
      scope: 'public',
      media_ids: [photo.json<{ id: string }>().id],
    });
    const error = `HTTP 500 from ${receiver.url}: Internal trouble`;
    const delivery = () =>
      t.database.db
        .selectFrom('deliveries')
        .select(['status', 'attempts', 'last_error'])
        .where('post_id', '=', post.id)
        .executeTakeFirst();
    await expect.poll(delivery, WAIT).toEqual({ status: 'failed', attempts: 1, last_error: error });

    const page = await t.signedIn({ as: user, acceptDialogs: true });
    const card = page.locator(`#post-${post.id}`);
    expect((await card.locator('.deliveries').innerText()).replace(/\s+/g, ' ').trim()).toBe(
      `Deliveries: Home hook: failed (${error})`,
    );
    expect(await card.getByRole('button', { name: 'Retry Home hook' }).isVisible()).toBe(true);
    expect(await axeViolationsLightDark(page)).toEqual([]);

    // The post's own page, from its card.
    await Promise.all([page.waitForURL(`${t.baseUrl}/app/posts/${post.id}`), card.locator('.meta a').first().click()]);
    expect(await page.locator('h1').innerText()).toBe('Post Public');
    expect(await page.locator('.post-page .text').textContent()).toBe('Evening on the dunes');
    expect(await page.locator('.post-page img').getAttribute('alt')).toBe('Dunes at dusk');
    expect(await page.getByRole('link', { name: 'its public page' }).getAttribute('href')).toBe(
      `/@${user.username}/${post.id}`,
    );
    const entry = page.locator(`[data-delivery="${service.id}"]`);
    expect((await entry.locator('p').first().innerText()).replace(/\s+/g, ' ').trim()).toBe(
      `Home hook: failed (${error})`,
    );
    expect(await entry.locator('.meta').innerText()).toMatch(/^1 try · last change \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await axeViolationsLightDark(page)).toEqual([]);
    await page.screenshot({ path: '/tmp/waypost-post-page-360-dark.png', fullPage: true });

    // Retry from the page: the target now takes it, and the page says so with a link to it.
    receiver.answer = (_request, response) => response.writeHead(201, { location: `${receiver.url}/posts/7` }).end();
    const [retried] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/posts/id/${post.id}/deliveries/${service.id}/retry`)),
      // The page reloads once the API has taken it (data-done="reload"): wait for that before going on.
      page.waitForEvent('load'),
      entry.getByRole('button', { name: 'Retry Home hook' }).click(),
    ]);
    expect(retried.status()).toBe(202);
    await expect.poll(async () => (await delivery())?.status, WAIT).toBe('delivered');
    await page.reload();
    expect((await entry.locator('p').first().innerText()).replace(/\s+/g, ' ').trim()).toBe(
      'Home hook: delivered · see it there',
    );
    expect(await entry.getByRole('link', { name: 'see it there' }).getAttribute('href')).toBe(
      `${receiver.url}/posts/7`,
    );
    expect(await entry.getByRole('button').count()).toBe(0);

    // The text, edited on the page.
    await page.getByText('Edit the text').click();
    await page.getByLabel('Text', { exact: true }).fill('Evening on the dunes, and the wind');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save the text' }).click()]);
    expect(await page.locator('.post-page .text').textContent()).toBe('Evening on the dunes, and the wind');

    // Deleted from the page: back on the timeline, without it.
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/`),
      page.getByRole('button', { name: 'Delete this post' }).click(),
    ]);
    expect(await page.locator(`#post-${post.id}`).count()).toBe(0);
    const gone = await page.goto(`${t.baseUrl}/app/posts/${post.id}`);
    expect(gone?.status()).toBe(404);
  }, 120_000);

  it("another person's post is not found here, public or not", async () => {
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['create_post']);
    const made = await t.app.inject({
      method: 'POST',
      url: '/posts',
      headers: { authorization: `Bearer ${token}` },
      payload: { text: 'Mine', groups: [], scope: 'public' },
    });
    const other = await createTestUser(t.database);
    const page = await t.signedIn({ as: other });
    const answer = await page.goto(`${t.baseUrl}/app/posts/${made.json<{ id: string }>().id}`);
    expect(answer?.status()).toBe(404);
    expect(await page.locator('.error').textContent()).toBe('No such post.');
  });
});
