// The menu of pages in Chromium (src/web/layout.ts): on a 360 px phone a "Menu" button that
// names the current page and opens, by pointer or keyboard, a list where every section is on
// screen at once; on a desktop every entry in the bar with no button. axe-core finds nothing, of
// any impact, at either width, menu open and closed.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { listeningTestApp } from '../../test/server.ts';
import { axeViolations, browserTest } from '../../test/web.ts';

const SHOTS = process.env.WAYPOST_SHOTS_DIR;

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }), { person: true });

const SECTIONS = ['Timeline', 'Compose', 'Map', 'Year', 'Media', 'Services', 'Views', 'Trackers', 'Settings', 'Apps'];

const signedIn = (width: number): Promise<Page> => t.signedIn({ context: { viewport: { width, height: 740 } } });

const pages = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
const menuButton = (page: Page) => page.locator('details.menu > summary');
/** What the Menu button says to a screen reader: its text, hidden words included. */
const said = async (page: Page) => ((await menuButton(page).textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** Whether the element is drawn inside the viewport's width, wholly. */
async function onScreen(page: Page, name: string, width: number): Promise<boolean> {
  const link = pages(page).getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) return false;
  const box = await link.boundingBox();
  return box !== null && box.x >= 0 && box.x + box.width <= width;
}

describe('the menu of pages', () => {
  it('shows every section on a 360 px phone behind a Menu button that names the current page', async () => {
    const page = await signedIn(360);
    expect(page.url()).toBe(`${t.baseUrl}/`);
    const button = menuButton(page);
    expect(await button.isVisible()).toBe(true);
    expect(await said(page)).toBe('Menu, this page: Timeline');
    expect(await onScreen(page, 'Settings', 360)).toBe(false);

    await button.click();
    for (const name of SECTIONS) expect(await onScreen(page, name, 360), name).toBe(true);
    expect(await pages(page).locator('[aria-current="page"]').allInnerTexts()).toEqual(['Timeline']);
    expect(await axeViolations(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/menu-360.png` });

    await Promise.all([
      page.waitForURL(`${t.baseUrl}/app/settings`),
      pages(page).getByRole('link', { name: 'Settings', exact: true }).click(),
    ]);
    expect(await said(page)).toBe('Menu, this page: Settings');
    await menuButton(page).click();
    expect(await pages(page).locator('[aria-current="page"]').allInnerTexts()).toEqual(['Settings']);
    await page.context().close();
  }, 60_000);

  it('opens and closes by keyboard alone', async () => {
    const page = await signedIn(360);
    await page.goto(`${t.baseUrl}/app/compose`);
    // Tab from the top: the skip link, the name, then the menu's button.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.locator('details.menu > summary:focus').count()).toBe(1);
    await page.keyboard.press('Enter');
    expect(await page.locator('details.menu').getAttribute('open')).toBe('');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Timeline');
    await page.keyboard.press('Escape');
    expect(await page.locator('details.menu').getAttribute('open')).toBe(null);
    expect(await page.locator('details.menu > summary:focus').count()).toBe(1);
    expect(await onScreen(page, 'Apps', 360)).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('shows every entry in the bar on a desktop, with no Menu button', async () => {
    const page = await signedIn(1280);
    expect(await menuButton(page).isVisible()).toBe(false);
    for (const name of SECTIONS) expect(await onScreen(page, name, 1280), name).toBe(true);
    expect(await pages(page).locator('[aria-current="page"]').allInnerTexts()).toEqual(['Timeline']);
    expect(await axeViolations(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/menu-1280.png` });
    await page.context().close();
  }, 60_000);
});
