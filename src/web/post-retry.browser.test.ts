// A delivery that failed a try and waits for the next one, in Chromium: the post's own page
// (/app/posts/<id>) says when Waypost tries it again, the time its queued job is due in the
// person's time zone, and "trying again now" while a worker holds the job. The first retry waits
// half an hour to an hour here (src/jobs/retry.ts), so none runs while the test reads the page.
import { describe, expect, it } from 'vitest';
import { updateSettings } from '../settings/settings.logic.ts';
import { startReceiver } from '../../test/receivers.ts';
import { browserTest, personWithApi, webTestApp } from '../../test/web.ts';

const WAIT = { timeout: 20_000, interval: 100 };
const SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;

const t = browserTest(() => webTestApp({ WAYPOST_DELIVERY_MAX_ATTEMPTS: '5', WAYPOST_RETRY_BASE_SECONDS: '3600' }), {
  servers: { receiver: startReceiver },
});

/** `YYYY-MM-DD HH:MM` of an instant in Kolkata (UTC+05:30 all year), worked out here by hand. */
const kolkata = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');

describe("a delivery waiting for its next try, on the post's page", () => {
  it('says when Waypost tries it again, in the person’s zone, and that it is trying now while a worker holds it', async () => {
    const { receiver } = t;
    receiver.answer = (_request, response) => response.writeHead(503, { 'content-type': 'text/plain' }).end('Busy');
    const { user, call } = await personWithApi(t, ['create_service', 'manage_groups', 'create_post']);
    await updateSettings(t.database.db, user.id, { timezone: 'Asia/Kolkata' });
    const service = await call('/services', {
      type: 'webhook',
      name: 'Slow hook',
      config: { url: `${receiver.url}/hook`, secret: SECRET },
    });
    const group = await call('/services/groups', { name: 'Slow', service_ids: [service.id] });
    const post = await call('/posts', { text: 'Waiting for the hook', groups: [group.id], scope: 'private' });
    const delivery = () =>
      t.database.db
        .selectFrom('deliveries')
        .select(['id', 'status', 'attempts', 'last_error', 'updated_at'])
        .where('post_id', '=', post.id)
        .executeTakeFirstOrThrow();
    const error = `HTTP 503 from ${receiver.url}: Busy`;
    await expect.poll(async () => (await delivery()).attempts, WAIT).toBe(1);
    const failed = await delivery();
    expect([failed.status, failed.last_error]).toEqual(['pending', error]);
    const job = await t.database.db
      .selectFrom('jobs')
      .select(['id', 'run_at'])
      .where('ref', '=', failed.id)
      .where('status', '=', 'queued')
      .executeTakeFirstOrThrow();
    // At least half an hour after the failed try, seconds ago: not due yet, so the page says when.
    expect(job.run_at).toBeGreaterThan(Date.now() + 20 * 60_000);

    const page = await t.signedIn({ as: user, path: `/app/posts/${post.id}` });
    const entry = page.locator(`[data-delivery="${service.id}"]`);
    const text = async (selector: string) =>
      (await entry.locator(selector).first().innerText()).replace(/\s+/g, ' ').trim();
    const meta = () => text('.meta');
    expect(await text('p')).toBe(`Slow hook: pending (last try: ${error})`);
    expect(await meta()).toBe(
      `1 try · last change ${kolkata(failed.updated_at)} · Waypost tries again by itself at ${kolkata(job.run_at)}`,
    );

    // A worker holding the job: the page says it is trying now.
    await t.database.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'another worker', locked_until: Date.now() + 3_600_000 })
      .where('id', '=', job.id)
      .execute();
    await page.reload();
    expect(await meta()).toBe(`1 try · last change ${kolkata(failed.updated_at)} · trying again now`);
    await page.context().close();
  }, 60_000);
});
