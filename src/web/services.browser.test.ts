// What the pages say when the outbound rules refuse a target, in Chromium: the Services page's
// Test button shows the API's answer (`ok: false` and why), and a delivery the rules refused is
// failed at once, with its error and Retry beside it on the timeline and on the post's page.
import { describe, expect, it } from 'vitest';
import { browserTest, personWithApi, webTestApp } from '../../test/web.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const SECRET = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
const REFUSAL = 'refused to connect to 127.0.0.1: the address is not allowed (see WAYPOST_OUTBOUND_ALLOW)';

// Private addresses allowed, loopback not: a webhook on 127.0.0.1 is refused.
const t = browserTest(() => webTestApp({ WAYPOST_OUTBOUND_ALLOW: 'private' }));

describe('a webhook the outbound rules refuse', () => {
  it('Test shows the refusal, and a post’s delivery is failed with the refusal on the timeline', async () => {
    const { user, call } = await personWithApi(t, ['create_service', 'manage_groups', 'create_post']);
    const service = await call('/services', {
      type: 'webhook',
      name: 'Home server',
      config: { url: 'http://127.0.0.1:4567/hook', secret: SECRET },
    });
    const group = await call('/services/groups', { name: 'Home', service_ids: [service.id] });

    const page = await t.signedIn({ as: user, path: '/app/services' });
    const card = page.locator(`[data-service="${service.id}"]`);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/services/${service.id}/test`)),
      card.getByRole('button', { name: 'Test Home server' }).click(),
    ]);
    expect(await answer.json()).toEqual({ ok: false, status: null, detail: REFUSAL });
    const result = card.locator('.test-result');
    await expect.poll(() => result.textContent(), WAIT).toBe(`Test failed: ${REFUSAL}.`);
    expect(await result.getAttribute('class')).toBe('test-result status-failed');

    const post = await call('/posts', { text: 'To the home server', groups: [group.id], scope: 'public' });
    const delivery = () =>
      t.database.db
        .selectFrom('deliveries')
        .select(['status', 'attempts', 'last_error'])
        .where('post_id', '=', post.id)
        .executeTakeFirst();
    // Refused by the rules is final: no retries, the reason kept.
    await expect.poll(delivery, WAIT).toEqual({ status: 'failed', attempts: 1, last_error: REFUSAL });

    await page.goto(`${t.baseUrl}/`);
    const deliveries = page.locator(`#post-${post.id} .deliveries`);
    expect((await deliveries.innerText()).replace(/\s+/g, ' ').trim()).toBe(
      `Deliveries: Home server: failed (${REFUSAL})`,
    );
    // Retry beside it: the API takes it (202), and the rules refuse it again.
    const [retried] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/posts/id/${post.id}/deliveries/${service.id}/retry`)),
      // The page reloads once the API has taken it (data-done="reload"): wait for that before going on.
      page.waitForEvent('load'),
      page.locator(`#post-${post.id}`).getByRole('button', { name: 'Retry Home server' }).click(),
    ]);
    expect(retried.status()).toBe(202);
    await expect.poll(delivery, WAIT).toEqual({ status: 'failed', attempts: 2, last_error: REFUSAL });

    // The post's own page says the same, with the tries and Retry.
    await page.goto(`${t.baseUrl}/app/posts/${post.id}`);
    const entry = page.locator(`[data-delivery="${service.id}"]`);
    expect((await entry.locator('p').first().innerText()).replace(/\s+/g, ' ').trim()).toBe(
      `Home server: failed (${REFUSAL})`,
    );
    expect(await entry.locator('.meta').innerText()).toMatch(/^2 tries · last change /);
    const [again] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/posts/id/${post.id}/deliveries/${service.id}/retry`)),
      // The page reloads once the API has taken it (data-done="reload"): wait for that before going on.
      page.waitForEvent('load'),
      entry.getByRole('button', { name: 'Retry Home server' }).click(),
    ]);
    expect(again.status()).toBe(202);
    await expect.poll(delivery, WAIT).toEqual({ status: 'failed', attempts: 3, last_error: REFUSAL });
  });
});
