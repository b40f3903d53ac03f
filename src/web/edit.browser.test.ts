// Editing a post's text from the timeline, in Chromium: the edit form on the post's card, the
// new text on the page, and the edit arriving at a loopback Mastodon-compatible server
// (test/protocols.ts), the delivery then saying so; axe-core at 360 and 1280 px with the form open.
import AxeBuilder from '@axe-core/playwright';
import { describe, expect, it } from 'vitest';
import { startMastodon } from '../../test/protocols.ts';
import { browserTest, personWithApi, webTestApp } from '../../test/web.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const MASTODON_TOKEN = 'mastodon-token-3';

const t = browserTest(() => webTestApp({ WAYPOST_OUTBOUND_ALLOW: 'loopback' }), {
  servers: { mastodon: () => startMastodon(MASTODON_TOKEN, { maxCharacters: 500 }) },
});

describe("a post's text, edited on the timeline", () => {
  it('reaches Mastodon as an edit, and the delivery says so', async () => {
    const { mastodon } = t;
    const { user, call } = await personWithApi(t, ['create_service', 'manage_groups', 'create_post']);
    const service = await call('/services', {
      type: 'mastodon',
      name: 'Mastodon',
      config: { instance_url: mastodon.url, access_token: MASTODON_TOKEN },
    });
    const group = await call('/services/groups', { name: 'Fediverse', service_ids: [service.id] });
    const post = await call('/posts', { text: 'Sunrise over the lake', groups: [group.id], scope: 'public' });
    const delivery = () =>
      t.database.db
        .selectFrom('deliveries')
        .select(['status', 'remote_id', 'edit_status'])
        .where('post_id', '=', post.id)
        .executeTakeFirst();
    await expect.poll(async () => (await delivery())?.status, WAIT).toBe('delivered');
    const statusId = (await delivery())!.remote_id!;

    const page = await t.signedIn({ as: user });
    await page.goto(`${t.baseUrl}/`);
    const card = page.locator(`#post-${post.id}`);
    await card.getByText('Edit the text').click();
    const field = card.getByLabel('Text', { exact: true });
    expect(await field.inputValue()).toBe('Sunrise over the lake');
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => v.id)).toEqual([]);
    }
    await field.fill('Sunrise over the lake, and the first swim');
    await Promise.all([page.waitForEvent('load'), card.getByRole('button', { name: 'Save the text' }).click()]);
    expect(await page.locator(`#post-${post.id} .text`).first().textContent()).toBe(
      'Sunrise over the lake, and the first swim',
    );

    await expect
      .poll(() => mastodon.edits[statusId]?.map((e) => e.status), WAIT)
      .toEqual(['Sunrise over the lake, and the first swim']);
    await expect.poll(async () => (await delivery())?.edit_status, WAIT).toBe('delivered');
    await page.reload();
    expect(await page.locator(`#post-${post.id} .deliveries`).textContent()).toMatch(
      /Mastodon:\s+delivered, edit delivered/,
    );
  });
});
