// The Trackers page in Chromium, through its pages: add a tracker and copy its token, see it
// wait for its first point, then work with "last point received" and a count for today; "New
// token" asks first, and a phone still sending the old token shows as refused; rename and switch
// off (its points refused), then delete after a confirmation. axe-core finds nothing, of any
// impact, at 360 and 1280 px.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { listeningTestApp } from '../../../test/server.ts';
import { axeViolations, browserTest } from '../../../test/web.ts';

const SHOTS = process.env.WAYPOST_SHOTS_DIR;

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }), { person: true });

function owntracksPoint(url: string, username: string, token: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`,
    },
    body: JSON.stringify({ _type: 'location', lat: 52.5, lon: 13.4, tst: 1_700_000_000, acc: 12, tid: 'ph' }),
  });
}

async function axeAtBothWidths(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    found.push(...(await axeViolations(page)).map((line) => `${width}: ${line}`));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

const status = (page: Page) => page.locator('[data-status]').first().textContent();

describe('the Trackers page in a browser', () => {
  it('adds, watches, re-tokens, renames, switches off and deletes a tracker', async () => {
    const { person } = t;
    const page = await t.signedIn({ context: { viewport: { width: 1280, height: 900 } }, path: '/app/trackers' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    expect(await page.locator('.warning').textContent()).toContain('A phone cannot reach these addresses.');

    await page.getByLabel('App').selectOption('owntracks');
    await page.getByLabel('Name', { exact: true }).fill('Phone');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Add', exact: true }).click()]);
    const token = (await page.locator('#fresh-token').textContent())!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy token' }).click();
    await expect.poll(() => page.locator('#fresh-token ~ .copy-status').textContent()).toBe('Token copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    const url = (await page.locator('[data-tracker] code[id^="url-"]').textContent())!;
    expect(await status(page)).toBe('Waiting for the first point.');
    expect(await page.locator('[data-last]').textContent()).toBe('None yet');
    expect(await axeAtBothWidths(page)).toEqual([]);

    // A point arrives: working, with when and how many today.
    expect((await owntracksPoint(url, person.username, token)).status).toBe(200);
    await page.goto(`${t.baseUrl}/app/trackers`);
    expect(await status(page)).toBe('Working.');
    expect(await page.locator('[data-today]').textContent()).toBe('1');
    expect(await page.locator('[data-last]').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)$/);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/trackers-1280.png`, fullPage: true });

    // "New token" asks first; the phone still on the old token then shows as refused.
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'New token…' }).click()]);
    expect(await page.getByRole('heading', { name: 'A new token for Phone?' }).isVisible()).toBe(true);
    expect(await axeAtBothWidths(page)).toEqual([]);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Make a new token' }).click()]);
    const fresh = (await page.locator('#fresh-token').textContent())!;
    expect(fresh).not.toBe(token);
    expect((await owntracksPoint(url, person.username, token)).status).toBe(401);
    await page.goto(`${t.baseUrl}/app/trackers`);
    expect(await status(page)).toMatch(/^Refused: the phone still sends a token that was replaced/);

    // Rename and switch off: its points are refused.
    await page.getByText('Rename or switch off').click();
    await page.locator('[data-tracker] input[name="name"]').fill('Old phone');
    await page.getByLabel(/Switched on/).uncheck();
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save Phone' }).click()]);
    expect(await page.getByRole('status').first().textContent()).toContain('Saved Old phone: switched off.');
    expect(await status(page)).toBe('Switched off: the phone’s points are refused until you switch it on.');
    expect((await owntracksPoint(url, person.username, fresh)).status).toBe(403);
    expect(await axeAtBothWidths(page)).toEqual([]);

    // Delete, after a confirmation.
    await Promise.all([page.waitForEvent('load'), page.getByRole('link', { name: 'Delete…' }).click()]);
    expect(await page.getByRole('heading', { name: 'Delete Old phone?' }).isVisible()).toBe(true);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Delete the tracker' }).click()]);
    expect(await page.getByRole('status').first().textContent()).toBe(
      'Deleted Old phone. The points it sent stay in your history.',
    );
    expect(await page.locator('[data-tracker]').count()).toBe(0);
    await page.context().close();
  }, 120_000);
});
