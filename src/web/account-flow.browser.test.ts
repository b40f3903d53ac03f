// A person's first and last day with an account, in Chromium through the pages alone: the setup
// link signs them in onto the timeline; signing out and in again lands there too; they change
// their password (errors beside the fields, then done); a view shared with "Anyone with the
// link" opens as a page; deleting the account leaves a home page that tells the truth about
// setup links, and the old link is dead. axe-core finds nothing, of any impact, at 360 and 1280 px.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';
import { axeViolations, browserTest } from '../../test/web.ts';
import { issueSetupToken } from '../users/setup.logic.ts';
import { findUserByUsername } from '../users/users.repo.ts';

const SHOTS = process.env.WAYPOST_SHOTS_DIR;

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }));

async function newPage(width = 1280): Promise<Page> {
  const context = await t.browser.newContext({ viewport: { width, height: 900 } });
  return context.newPage();
}

/** axe at both widths on the page's current address, as the same browser sees it. */
async function axeAtBothWidths(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    found.push(...(await axeViolations(page)).map((line) => `${width}: ${line}`));
  }
  return found;
}

describe('an account from the first day to the last, in a browser', () => {
  it('sets up from the link onto the timeline, changes the password, opens a shared view, and deletes the account', async () => {
    const token = (await issueSetupToken(t.database.db))!;
    const page = await newPage();

    // The setup link: the account, then signed in on the timeline.
    await page.goto(`${t.baseUrl}/setup?token=${token}`);
    expect(await axeAtBothWidths(page)).toEqual([]);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('first password');
    await page.getByLabel('Password again').fill('first password');
    await Promise.all([page.waitForURL(`${t.baseUrl}/`), page.getByRole('button', { name: 'Create account' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Timeline');
    expect(await page.locator('.who').textContent()).toContain('Signed in as alice');

    // Signing out and in again lands on the timeline too.
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/account`),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('first password');
    await Promise.all([page.waitForURL(`${t.baseUrl}/`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Timeline');

    // Change the password from the Apps page: a wrong current one, then the right one.
    await page.goto(`${t.baseUrl}/account`);
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/account/password`),
      page.getByRole('link', { name: 'Change your password' }).click(),
    ]);
    await page.getByLabel('Current password').fill('not it at all');
    await page.getByLabel('New password', { exact: true }).fill('second password');
    await page.getByLabel('New password again').fill('second password');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Change password' }).click()]);
    expect(await page.locator('#current-error').textContent()).toBe('This is not your current password.');
    expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    expect(await axeAtBothWidths(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel('Current password').fill('first password');
    await page.getByLabel('New password', { exact: true }).fill('second password');
    await page.getByLabel('New password again').fill('second password');
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/account/password?changed=1`),
      page.getByRole('button', { name: 'Change password' }).click(),
    ]);
    expect(await page.getByRole('status').textContent()).toContain('Your password is changed.');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/password-1280.png`, fullPage: true });
    expect(await axeAtBothWidths(page)).toEqual([]);

    // A view shared with anyone who has the link opens as a page for a stranger.
    const alice = (await findUserByUsername(t.database.db, 'alice'))!;
    const api = await tokenFor(t, alice, ['create_post', 'manage_views', 'get_views', 'get_private_scope']);
    const call = (url: string, payload: object) =>
      t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${api}` }, payload });
    expect((await call('/posts', { text: 'A walk by the river', groups: [], scope: 'public' })).statusCode).toBe(202);
    expect((await call('/posts', { text: 'A private note', groups: [], scope: 'private' })).statusCode).toBe(202);
    const view = await call('/views', { name: 'Walks', description: 'Where I walked', scope: 'public' });
    const viewId = view.json<{ id: string }>().id;
    const stranger = await newPage();
    const answer = await stranger.goto(`${t.baseUrl}/views/${viewId}`);
    expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await stranger.getByRole('heading', { level: 1 }).textContent()).toBe('Walks');
    expect(await stranger.locator('.entry .text').allTextContents()).toEqual(['A walk by the river']);
    expect(await axeAtBothWidths(stranger)).toEqual([]);
    if (SHOTS) await stranger.screenshot({ path: `${SHOTS}/shared-view-360.png`, fullPage: true });
    await stranger.context().close();

    // Delete the account: the home page then tells the truth, and the old setup link is dead.
    await page.goto(`${t.baseUrl}/account/delete`);
    await page.getByLabel('Your password, to confirm').fill('second password');
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('button', { name: 'Delete my account and all its data' }).click(),
    ]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account is deleted');
    expect(await page.locator('main').textContent()).toContain('The server printed a new setup link to its log');
    await page.goto(`${t.baseUrl}/`);
    const home = ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');
    expect(home).toContain('has no account yet');
    expect(home).toContain('when the last account is deleted');
    expect(home).not.toContain('when it started');
    expect(await axeAtBothWidths(page)).toEqual([]);
    const old = await page.goto(`${t.baseUrl}/setup?token=${token}`);
    expect(old?.status()).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Setup link not valid');
    await page.context().close();
  }, 120_000);
});
