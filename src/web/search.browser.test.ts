// The search box in Chromium (docs/api.md "Search"): on the timeline, a prefix finds the demo's
// post and photo with the matched words marked, and a result leads to the post on its day; on
// the public profile, a stranger finds the public post and never the private one. No scripts are
// needed (the box is a plain GET form). axe-core finds no serious or critical problem on the
// pages of results, at phone and desktop width, light and dark.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../test/receivers.ts';
import { browserTest, seedDemo, signInThroughPage, webTestApp, type Demo } from '../../test/web.ts';

const PASSWORD = 'search test password';
const t = browserTest(() => webTestApp(), { person: { password: PASSWORD }, servers: { receiver: startReceiver } });
let demo: Demo;

beforeAll(async () => {
  demo = await seedDemo(t, t.person, t.receiver.url);
}, 120_000);

/** Without scripts unless `scripts` (axe-core runs as a script in the page). */
async function newPage(width: number, colorScheme: 'light' | 'dark' = 'light', scripts = false): Promise<Page> {
  const context = await t.browser.newContext({
    viewport: { width, height: 900 },
    colorScheme,
    javaScriptEnabled: scripts,
  });
  return context.newPage();
}

async function serious(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${page.url()}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe('the search box', () => {
  it('on the timeline finds the post and the photo by a prefix, marks the words, and leads to the post', async () => {
    const page = await newPage(1280);
    await signInThroughPage(page, t.baseUrl, demo.username, PASSWORD);
    await page.goto(`${t.baseUrl}/`);
    await page.getByLabel('Search your posts, media and places').fill('ridg*');
    await Promise.all([page.waitForURL(/\/app\/search\?q=ridg/), page.getByRole('button', { name: 'Search' }).click()]);
    const results = page.getByRole('list', { name: 'Results for ridg*' }).getByRole('listitem');
    expect(await results.count()).toBe(2);
    // The post's "ridge" and its #ridge, then the photo's caption.
    expect(await page.locator('.result mark').allTextContents()).toEqual(['ridge', 'ridge', 'ridge']);
    expect(await results.locator('.meta').allTextContents()).toEqual([
      expect.stringMatching(/^Post · /),
      expect.stringMatching(/^Photo · /),
    ]);
    await Promise.all([
      page.waitForURL(/\/app\/days\/\d{4}-\d{2}-\d{2}#post-/),
      results.first().getByRole('link').click(),
    ]);
    expect(await page.locator(`#post-${demo.postId}`).count()).toBe(1);

    // The Media page's box searches media alone.
    await page.goto(`${t.baseUrl}/app/media`);
    await page.getByLabel('Search your media by caption').fill('ridge');
    await Promise.all([page.waitForURL(/kind=media/), page.getByRole('button', { name: 'Search' }).click()]);
    expect(await page.locator('.result .meta').allTextContents()).toEqual([expect.stringMatching(/^Photo · /)]);

    // A query that is no search says why, as a 400 page.
    const refused = await page.goto(`${t.baseUrl}/app/search?q=${encodeURIComponent('a*')}`);
    expect(refused?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toBe('The search must have at least 2 letters before each *.');
    await page.context().close();
  }, 60_000);

  it('on the public profile finds public items only, for anyone', async () => {
    const page = await newPage(360);
    await page.goto(`${t.baseUrl}/@${demo.username}`);
    await page.getByLabel("Search Alice Example's posts and media").fill('RIDGE sunrise');
    await Promise.all([page.waitForURL(/\/search\?q=RIDGE/), page.getByRole('button', { name: 'Search' }).click()]);
    const results = page.getByRole('list', { name: 'Results for RIDGE sunrise' }).getByRole('listitem');
    expect(await results.count()).toBe(1);
    expect(await results.locator('mark').allTextContents()).toEqual(['ridge', 'sunrise', 'ridge']);
    await Promise.all([
      page.waitForURL(`${t.baseUrl}/@${demo.username}/${demo.postId}`),
      results.getByRole('link').click(),
    ]);

    // The demo's private post ("Notes to self: buy new boots.") is not there for strangers.
    await page.goto(`${t.baseUrl}/@${demo.username}/search?q=boots`);
    expect(await page.getByRole('status').textContent()).toBe('Nothing matches “boots”.');
    await page.context().close();
  }, 60_000);

  it('has no serious or critical accessibility problem at both widths, light and dark', async () => {
    const found: string[] = [];
    for (const width of [360, 1280]) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await newPage(width, scheme, true);
        for (const path of [`/@${demo.username}/search?q=ridge`]) {
          await page.goto(`${t.baseUrl}${path}`);
          found.push(...(await serious(page)));
        }
        await signInThroughPage(page, t.baseUrl, demo.username, PASSWORD);
        // The timeline, Media and the profile with their boxes are in src/web/web.browser.test.ts's walk.
        for (const path of ['/app/search?q=ridg*', '/app/search?q=nothing%20here']) {
          await page.goto(`${t.baseUrl}${path}`);
          found.push(...(await serious(page)));
        }
        await page.context().close();
      }
    }
    expect(found).toEqual([]);
  }, 300_000);
});
