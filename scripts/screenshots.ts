// `npm run screenshots`: a server on a temporary database with demo content, every page of the
// web app (test/web-pages.ts) in Chromium at desktop (1280) and phone (360) width, written to
// docs/screenshots/<page>-<width>.png.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { createTestUser } from '../test/helpers.ts';
import { startReceiver } from '../test/receivers.ts';
import { pathOf, WEB_PAGES } from '../test/web-pages.ts';
import { launchChromium, seedDemo, signInThroughPage, webTestApp } from '../test/web.ts';

const OUT = join(import.meta.dirname, '..', 'docs', 'screenshots');
const WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 360, height: 780 } };

/**
 * Waits until what a page draws after loading is drawn: every image (lazy ones too, which a full
 * page shot would catch empty below the fold) and a map with its day's track and status line.
 */
async function settled(page: Page): Promise<void> {
  await page.evaluate(`(async () => {
    const images = [...document.images];
    for (const image of images) image.loading = 'eager';
    await Promise.all(images.map((image) => image.decode().catch(() => undefined)));
  })()`);
  const map = page.locator('[data-waypost-map]');
  if ((await map.count()) === 0) return;
  await page.waitForFunction(
    `document.querySelector('[data-waypost-map]')?.dataset.mapState !== undefined &&
      (!document.querySelector('[data-waypost-map][data-track]') || document.getElementById('map-status')?.textContent !== '')`,
    undefined,
    { timeout: 20_000 },
  );
  // The track is drawn at the next frames after its status line is written.
  await page.waitForTimeout(1000);
}

const receiver = await startReceiver();
const t = await webTestApp();
const browser = await launchChromium();
try {
  mkdirSync(OUT, { recursive: true });
  const user = await createTestUser(t.database, { username: 'alice', password: 'demo password 1' });
  const demo = await seedDemo(t, user, receiver.url);
  await receiver.seen(1);
  for (const [label, viewport] of Object.entries(WIDTHS)) {
    for (const signedIn of [false, true]) {
      const context = await browser.newContext({ viewport, colorScheme: 'light' });
      const page = await context.newPage();
      if (signedIn) await signInThroughPage(page, t.baseUrl, 'alice', 'demo password 1');
      for (const entry of WEB_PAGES.filter((p) => !p.visitor === signedIn)) {
        await page.goto(`${t.baseUrl}${pathOf(entry, demo)}`);
        await page.waitForLoadState('networkidle');
        await settled(page);
        const file = join(OUT, `${entry.name}-${label}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(file);
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await t.close();
  await receiver.close();
}
