// The web app in a real browser: a listening app whose deliveries run (loopback receivers
// allowed), Debian's Chromium, signing in through the page, demo files made by sharp and ffmpeg.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Permission } from '../src/core/permissions.ts';
import { createJobRunner } from '../src/job-runner.ts';
import { createTestUser, type TestApp } from './helpers.ts';
import { listeningTestApp } from './server.ts';
import { tokenFor } from './tokens.ts';

export const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'],
};

export const launchChromium = (): Promise<Browser> => chromium.launch(CHROMIUM);

/** A listening app whose job worker runs in the background, so deliveries happen. */
export async function webTestApp(env: Record<string, string> = {}) {
  const t = await listeningTestApp({ env: { WAYPOST_OUTBOUND_ALLOW: 'loopback', ...env } });
  // An import's child process connects to this test's own database (on PostgreSQL, one per file).
  const importDatabase = { url: t.databaseUrl, sqlitePath: join(t.config.dataDir, 'waypost.db') };
  const runner = createJobRunner({ config: t.config, database: t.database, importDatabase });
  let running = true;
  const loop = (async () => {
    while (running) {
      const done = await runner.worker.runOnce().catch(() => 0);
      if (done === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    ...t,
    close: async () => {
      running = false;
      await loop;
      await runner.close();
      await t.close();
    },
  };
}

/** Signs in through the sign-in form the page shows; signing in lands on the timeline. */
export async function signInThroughPage(page: Page, baseUrl: string, username: string, password: string) {
  await page.goto(`${baseUrl}/account`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(`${baseUrl}/`), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** Someone who signs in with a password. */
export interface Person {
  id: string;
  username: string;
  password: string;
}

export interface SignedInOptions {
  /** Who signs in: the file's own person (`browserTest`'s `person` option) by default. */
  as?: { username: string; password: string };
  /** The new browser context's options: its viewport, colour scheme, scripts. */
  context?: BrowserContextOptions;
  /** Accepts every `confirm()` the page asks (Delete, Disconnect), from the start. */
  acceptDialogs?: boolean;
  /** Where to go once signed in (signing in lands on the timeline). */
  path?: string;
}

/** A browser test file's app (its fields copied in before the file's first test), Chromium and a person. */
export type BrowserTest<App, Servers = object> = App &
  Servers & {
    browser: Browser;
    /** The file's own person: there only with `browserTest`'s `person` option. */
    person: Person;
    /** A page in a context of its own, signed in through the sign-in form. */
    signedIn(options?: SignedInOptions): Promise<Page>;
  };

export interface BrowserTestOptions<Servers> {
  /** A person of the file's own: `true`, or createTestUser's overrides. */
  person?: true | Parameters<typeof createTestUser>[1];
  /** Servers the file's tests talk to (a webhook receiver, a fake Mastodon), each under its name, started before the app. */
  servers?: { [K in keyof Servers]: () => Promise<Servers[K] & { close(): Promise<void> }> };
}

/**
 * The setup a browser test file shares: before its tests, its `servers`, the app `start` makes,
 * Debian's Chromium and (with `person`) a person of the file's own; after them, all closed. Call
 * it at the top of the file: what it returns takes the app's fields (`app`, `database`,
 * `baseUrl`…) and the servers once they are up, so it serves as the test app.
 */
export function browserTest<App extends TestApp & { baseUrl: string }, Servers = object>(
  start: () => Promise<App>,
  options: BrowserTestOptions<Servers> = {},
): BrowserTest<App, Servers> {
  let app: App | undefined;
  const servers: { close(): Promise<void> }[] = [];
  const t = {
    async signedIn({ as, context, acceptDialogs, path }: SignedInOptions = {}): Promise<Page> {
      const page = await (await t.browser.newContext(context)).newPage();
      if (acceptDialogs) page.on('dialog', (dialog) => void dialog.accept());
      const who = as ?? t.person;
      if (!who) throw new Error('signedIn: whom? browserTest was given no person, and signedIn no `as`');
      await signInThroughPage(page, t.baseUrl, who.username, who.password);
      if (path !== undefined) await page.goto(`${t.baseUrl}${path}`);
      return page;
    },
  } as BrowserTest<App, Servers>;
  beforeAll(async () => {
    for (const [name, startServer] of Object.entries(options.servers ?? {})) {
      const server = await (startServer as () => Promise<{ close(): Promise<void> }>)();
      servers.push(server);
      Object.assign(t, { [name]: server });
    }
    app = await start();
    Object.assign(t, app);
    t.browser = await launchChromium();
    if (options.person) {
      t.person = await createTestUser(t.database, options.person === true ? {} : options.person);
    }
  });
  afterAll(async () => {
    await t.browser?.close();
    await app?.close();
    for (const server of servers) await server.close();
  });
  return t;
}

/**
 * A new person, an access token of theirs with `permissions`, and `call`, which POSTs a JSON
 * body to the API with that token, expects an answer under 300 and gives its `id`.
 */
export async function personWithApi(t: TestApp, permissions: Permission[]) {
  const user = await createTestUser(t.database);
  const token = await tokenFor(t, user, permissions);
  const call = async (url: string, payload: object) => {
    const response = await t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload,
    });
    expect(response.statusCode).toBeLessThan(300);
    return response.json<{ id: string }>();
  };
  return { user, token, call };
}

/** Every axe-core violation on the page, of any impact, as `rule (targets)` lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** axeViolations in light and in dark, each at 360 and at 1280 px, each line led by `scheme width:`. */
export async function axeViolationsLightDark(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      found.push(...(await axeViolations(page)).map((line) => `${colorScheme} ${width}: ${line}`));
    }
  }
  return found;
}

/** A photo-like JPEG: sky, hills and a sun. */
export async function demoPhoto(hue = 200): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">
    <defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="hsl(${hue},70%,55%)"/><stop offset="1" stop-color="hsl(${hue + 30},80%,85%)"/>
    </linearGradient></defs>
    <rect width="800" height="600" fill="url(#s)"/>
    <circle cx="620" cy="150" r="70" fill="hsl(45,95%,60%)"/>
    <path d="M0 420 Q200 300 400 420 T800 400 V600 H0Z" fill="hsl(${(hue + 140) % 360},45%,38%)"/>
    <path d="M0 500 Q250 420 500 510 T800 480 V600 H0Z" fill="hsl(${(hue + 120) % 360},50%,28%)"/>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

/** A two-second WebM (VP8 test pattern with a tone), which Chromium plays. */
export async function demoVideo(): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'waypost-video-'));
  try {
    const path = join(dir, 'clip.webm');
    const args =
      '-v error -nostdin -y -f lavfi -i testsrc=size=320x240:rate=10 -f lavfi -i sine=frequency=440 -t 2 -c:v libvpx -b:v 300k -c:a libvorbis'.split(
        ' ',
      );
    await promisify(execFile)('ffmpeg', [...args, path], { timeout: 60_000 });
    return readFileSync(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Demo {
  username: string;
  photoId: string;
  videoId: string;
  postId: string;
  /** The day with a tracker's stays and trips (test/demo-day.ts), `YYYY-MM-DD`. */
  day: string;
}

/** Demo content for screenshots: settings, a webhook service and a group, photos, a video, posts, a walk, a view, a day of stays and trips. */
export async function seedDemo(
  t: Awaited<ReturnType<typeof webTestApp>>,
  user: { id: string; username: string },
  webhookUrl: string,
): Promise<Demo> {
  const { tokenFor } = await import('./tokens.ts');
  const { uploadMedium } = await import('./media.ts');
  const token = await tokenFor(t, user, [
    'create_post',
    'upload_media',
    'write_locations',
    'create_service',
    'get_services',
    'manage_groups',
    'update_settings',
    'manage_views',
    'get_private_scope',
  ]);
  const call = async <T>(method: 'POST' | 'GET', url: string, payload?: unknown): Promise<T> => {
    const response = await t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json<T>();
  };
  await call('POST', '/settings', {
    display_name: 'Alice Example',
    bio: 'Walks, photos and notes from the hills.',
    timezone: 'Europe/Berlin',
  });
  const service = await call<{ id: string }>('POST', '/services', {
    type: 'webhook',
    name: 'My website',
    config: { url: `${webhookUrl}/hook`, secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}` },
  });
  const group = await call<{ id: string }>('POST', '/services/groups', {
    name: 'Everywhere',
    service_ids: [service.id],
  });
  const photos: string[] = [];
  for (const [hue, caption] of [
    [200, 'A clear morning over the hills'],
    [20, 'Sunset at the ridge'],
    [120, 'The meadow after rain'],
  ] as const) {
    const response = await uploadMedium(t, token, await demoPhoto(hue), 'photo.jpg', 'image/jpeg', {
      scope: 'public',
      caption,
    });
    photos.push(response.json<{ id: string }>().id);
  }
  const video = await uploadMedium(t, token, await demoVideo(), 'clip.webm', 'video/webm', {
    scope: 'private',
    caption: 'Test pattern clip',
  });
  const now = Date.now() / 1000;
  await call('POST', '/locations', [
    ...Array.from({ length: 6 }, (_, i) => ({
      time: now - 86_400 - i * 600,
      lat: 47.37 + i * 0.002,
      lon: 8.54 + i * 0.003,
      accuracy: 8 + i,
      scope: 'public',
    })),
  ]);
  // A walk imported from a GPX file, for the Imports page (run by the app's worker).
  const { uploadImport } = await import('./imports.ts');
  const walk = Array.from(
    { length: 12 },
    (_, i) =>
      `<trkpt lat="${(47.36 + i * 0.001).toFixed(4)}" lon="${(8.53 + i * 0.0015).toFixed(4)}"><time>${new Date((now - 3 * 86_400 + i * 60) * 1000).toISOString()}</time></trkpt>`,
  ).join('');
  const gpx = `<?xml version="1.0"?><gpx version="1.1" creator="demo" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${walk}<trkpt lat="47.4" lon="8.6"></trkpt></trkseg></trk></gpx>`;
  const imported = await uploadImport(t, token, gpx, 'lake-walk.gpx', { scope: 'private' });
  if (imported.statusCode !== 202) throw new Error(`POST /imports: ${imported.statusCode} ${imported.body}`);
  await call('POST', '/posts', { text: 'Notes to self: buy new boots.', groups: [], scope: 'private' });
  const post = await call<{ id: string }>('POST', '/posts', {
    text: 'Up on the ridge before sunrise. The valley was still in fog, and the first light caught the far peaks. #ridge ☀️',
    groups: [group.id],
    scope: 'public',
    media_ids: [photos[0]!, photos[1]!],
    location: { lat: 47.3769, lon: 8.5417 },
  });
  await call('POST', '/views', { name: 'Walks', kinds: ['posts', 'locations'], filters: {}, scope: 'public' });
  const { seedDemoDay } = await import('./demo-day.ts');
  const day = await seedDemoDay({
    database: t.database,
    userId: user.id,
    timezone: 'Europe/Berlin',
    call,
    upload: async (file, caption) =>
      (await uploadMedium(t, token, file, 'swans.jpg', 'image/jpeg', { scope: 'private', caption })).json(),
    photo: await demoPhoto(190),
  });
  return {
    username: user.username,
    photoId: photos[0]!,
    videoId: video.json<{ id: string }>().id,
    postId: post.id,
    day,
  };
}
