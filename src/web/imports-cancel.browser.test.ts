// The Imports page in Chromium, with the import worker driven by the test (docs/imports.md "In the
// web app"): an upload stopped half-way offers "Try again", which sends the file whole and the
// import runs; an import cancelled from the page while it runs (held after its first batch) goes,
// with every point it had stored.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { drain, importWorker } from '../../test/imports.ts';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';
import { browserTest } from '../../test/web.ts';

const WAIT = { timeout: 30_000, interval: 100 };

const t = browserTest(() => listeningTestApp({ env: { WAYPOST_MAP_STYLE: 'none' } }), { person: true });

/** A GPX track of `count` timed points a minute apart, starting `offset` minutes into 3 June 2019. */
function gpx(count: number, offset = 0): string {
  const points = Array.from({ length: count }, (_, i) => {
    const time = new Date(Date.UTC(2019, 5, 3, 8, offset + i)).toISOString();
    return `<trkpt lat="${(52.37 + i / 1e4).toFixed(4)}" lon="${(4.89 + i / 1e4).toFixed(4)}"><time>${time}</time></trkpt>`;
  }).join('');
  return `<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${points}</trkseg></trk></gpx>`;
}

const imports = (): Promise<Page> =>
  t.signedIn({ context: { viewport: { width: 1280, height: 900 } }, path: '/app/imports' });

async function pick(page: Page, name: string, content: string) {
  await page.getByLabel('Choose a file, or drop it here').setInputFiles({
    name,
    mimeType: 'application/gpx+xml',
    buffer: Buffer.from(content),
  });
}

const card = (page: Page, filename: string) =>
  page.locator('#imports li', { has: page.locator('h3', { hasText: filename }) });

async function storedPoints(): Promise<number> {
  const token = await tokenFor(t, t.person, ['get_private_scope']);
  const response = await t.app.inject({
    method: 'GET',
    url: '/locations/private?count=1000',
    headers: { authorization: `Bearer ${token}` },
  });
  return response.json<unknown[]>().length;
}

describe('the Imports page, the worker in the hands of the test', () => {
  it('offers "Try again" after an upload was stopped, and the file sent again is imported', async () => {
    const page = await imports();
    // The first upload is held at the server's door, so it is still going when Stop is pressed.
    let held = false;
    await page.route('**/imports', async (route) => {
      if (held || route.request().method() !== 'POST') return route.continue();
      held = true;
      // Never answered: the browser gives up on it when the page stops the upload.
      await new Promise(() => {});
    });
    await pick(page, 'stopped.gpx', gpx(5));
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => page.locator('#upload-status').textContent(), WAIT).toMatch(/^Uploading stopped\.gpx/);
    await page.getByRole('button', { name: 'Stop the upload' }).click();
    await expect
      .poll(() => page.locator('#upload-status').textContent(), WAIT)
      .toBe('The upload of stopped.gpx was stopped.');
    expect(await page.getByRole('button', { name: 'Stop the upload' }).isVisible()).toBe(false);
    expect(await page.locator('#imports li').count()).toBe(0);

    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => card(page, 'stopped.gpx').count(), WAIT).toBe(1);
    await drain(importWorker(t));
    await expect.poll(() => card(page, 'stopped.gpx').locator('.import-status').textContent(), WAIT).toBe('Done');
    expect(await storedPoints()).toBe(5);
    await page.context().close();
  }, 90_000);

  it('cancels a running import from its card: the import and every point it stored go', async () => {
    const before = await storedPoints();
    const page = await imports();
    await pick(page, 'long-walk.gpx', gpx(40, 600));
    await page.getByRole('button', { name: 'Upload and import' }).click();
    await expect.poll(() => card(page, 'long-walk.gpx').count(), WAIT).toBe(1);

    // The worker commits its first batch of 4 points, then waits until the test lets it go on.
    let release = () => {};
    const waiting = new Promise<void>((resolve) => (release = resolve));
    let batches = 0;
    const worker = importWorker(t, {
      batchRecords: 4,
      onBatch: async () => {
        batches += 1;
        if (batches === 1) await waiting;
      },
    });
    const run = worker.runOnce();
    const running = card(page, 'long-walk.gpx');
    await expect.poll(() => running.locator('.import-status').textContent(), WAIT).toBe('Running');
    await expect.poll(() => running.locator('dl.counters div').first().textContent(), WAIT).toBe('Points stored4');
    expect(await storedPoints()).toBe(before + 4);

    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await running.getByRole('button', { name: /^Cancel/ }).click();
    await expect.poll(() => page.locator('#imports h3').allTextContents(), WAIT).not.toContain('long-walk.gpx');
    expect(question).toBe('Cancel the import of long-walk.gpx? The 4 points it stored so far will be deleted.');
    release();
    await run;
    expect(batches).toBe(1);
    expect(await storedPoints()).toBe(before);
    const token = await tokenFor(t, t.person, ['write_locations']);
    const listed = await t.app.inject({
      method: 'GET',
      url: '/imports',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.json<{ filename: string }[]>().map((imp) => imp.filename)).toEqual(['stopped.gpx']);
    await page.reload();
    expect(await page.locator('#imports h3').allTextContents()).toEqual(['stopped.gpx']);
    await page.context().close();
  }, 90_000);
});
