// The Trackers page through its forms, as a signed-in browser uses it: adding a tracker shows its
// token once with the phone's set-up (OwnTracks' configuration link as a QR code), the phone can
// then send points with it; a new token replaces the old at once; another person's tracker is a
// 404; a form without the CSRF token changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../../../test/browser.ts';
import { countRows, createTestUser } from '../../../test/helpers.ts';
import { listeningTestApp } from '../../../test/server.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
beforeAll(async () => {
  t = await listeningTestApp();
});
afterAll(() => t.close());

async function signedIn() {
  const user = await createTestUser(t.database);
  const browser = new Browser();
  const page = await (await browser.request(`${t.baseUrl}/account`)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const response = await browser.request(`${t.baseUrl}/account/sign-in`, {
    form: { csrf, username: user.username, password: user.password },
  });
  expect(response.status).toBe(303);
  return { user, browser };
}

async function trackersPage(browser: Browser) {
  const response = await browser.request(`${t.baseUrl}/app/trackers`);
  expect(response.status).toBe(200);
  const body = await response.text();
  return { body, csrf: /name="csrf" value="([^"]+)"/.exec(body)![1]! };
}

const tokenIn = (body: string) =>
  /<dt>Token<\/dt>\s*<dd class="copyable">\s*<code id="fresh-token">([A-Za-z0-9_-]{43})<\/code>/.exec(body)?.[1];

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

describe('the Trackers page', () => {
  it('shows a visitor the sign-in form, and refuses its forms', async () => {
    const response = await new Browser().request(`${t.baseUrl}/app/trackers`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('action="/account/sign-in');
    const post = await new Browser().request(`${t.baseUrl}/app/trackers`, { form: { type: 'owntracks', name: 'x' } });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toBe('/account');
  });

  it('adds an OwnTracks tracker and shows its token once, with a QR code of the configuration link that works', async () => {
    const { user, browser } = await signedIn();
    const { body: empty, csrf } = await trackersPage(browser);
    expect(empty).toContain('No trackers yet.');

    const created = await browser.request(`${t.baseUrl}/app/trackers`, {
      form: { csrf, type: 'owntracks', name: 'My phone' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const body = await created.text();
    const token = tokenIn(body);
    expect(token).toBeDefined();
    const url = /<dt>URL<\/dt>\s*<dd><code>([^<]+)<\/code><\/dd>/.exec(body)?.[1];
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/ingest/[0-9A-Z]{26}$`));

    const link = /<a href="(owntracks:\/\/\/config\?inline=[^"]+)">/.exec(body)?.[1];
    expect(link).toBeDefined();
    const inline = link!.slice('owntracks:///config?inline='.length);
    expect(JSON.parse(Buffer.from(inline, 'base64').toString('utf8'))).toEqual({
      _type: 'configuration',
      mode: 3,
      url,
      auth: true,
      username: user.username,
      password: token,
    });
    expect(body).toMatch(
      /<svg class="qr" role="img" aria-label="QR code with the OwnTracks settings for this tracker" [^>]*viewBox="0 0 \d+ \d+"/,
    );
    // Scripts only from files (the layout's modules): the QR code needs none.
    expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/);

    // The phone, set up from the link, sends a point.
    const sent = await owntracksPoint(url!, user.username, token!);
    expect(sent.status).toBe(200);
    expect(await sent.json()).toEqual([]);
    expect(await countRows(t.database, 'locations')).toBeGreaterThanOrEqual(1);

    // Afterwards the page shows the address, never the token.
    const { body: later } = await trackersPage(browser);
    expect(later).toContain('My phone');
    expect(later).toContain(url!);
    expect(later).not.toContain(token!);
  });

  it('spells out the settings for Overland and GPSLogger', async () => {
    const { browser } = await signedIn();
    const { csrf } = await trackersPage(browser);
    const overland = await (
      await browser.request(`${t.baseUrl}/app/trackers`, { form: { csrf, type: 'overland', name: 'Overland phone' } })
    ).text();
    const overlandToken = tokenIn(overland)!;
    expect(overland).toMatch(
      /<dt>Receiver Endpoint<\/dt>\s*<dd><code>http:\/\/127\.0\.0\.1:\d+\/ingest\/[0-9A-Z]{26}<\/code>/,
    );
    expect(overland.replace(/\s+/g, ' ')).toContain(`<dt>Access Token</dt> <dd><code>${overlandToken}</code></dd>`);
    const gps = await (
      await browser.request(`${t.baseUrl}/app/trackers`, { form: { csrf, type: 'gpslogger', name: 'Android' } })
    ).text();
    const gpsToken = tokenIn(gps)!;
    const gpsUrl = new RegExp(
      `<dt>URL</dt>\\s*<dd><code>(http://127\\.0\\.0\\.1:\\d+/ingest/[0-9A-Z]{26}\\?token=${gpsToken})</code>`,
    ).exec(gps)?.[1];
    expect(gpsUrl).toBeDefined();
    expect(gps).toContain('<dd><code>%ALL</code></dd>');
    const sent = await fetch(gpsUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'lat=48.1&lon=11.5&time=2024-05-01T10:00:00Z&acc=8',
    });
    expect(sent.status).toBe(200);
  });

  it('a new token replaces the old one at once', async () => {
    const { user, browser } = await signedIn();
    const { csrf } = await trackersPage(browser);
    const created = await (
      await browser.request(`${t.baseUrl}/app/trackers`, { form: { csrf, type: 'owntracks', name: 'Rotating' } })
    ).text();
    const oldToken = tokenIn(created)!;
    const url = /<dt>URL<\/dt>\s*<dd><code>([^<]+)<\/code><\/dd>/.exec(created)![1]!;
    const id = url.split('/').at(-1)!;
    const rotated = await browser.request(`${t.baseUrl}/app/trackers/${id}/token`, { form: { csrf } });
    expect(rotated.status).toBe(200);
    const newToken = tokenIn(await rotated.text())!;
    expect(newToken).not.toBe(oldToken);
    expect((await owntracksPoint(url, user.username, oldToken)).status).toBe(401);
    expect((await owntracksPoint(url, user.username, newToken)).status).toBe(200);
  });

  it("another person's tracker is a 404 and keeps its token; a form without the CSRF token changes nothing", async () => {
    const owner = await signedIn();
    const { csrf: ownerCsrf } = await trackersPage(owner.browser);
    const created = await (
      await owner.browser.request(`${t.baseUrl}/app/trackers`, {
        form: { csrf: ownerCsrf, type: 'owntracks', name: 'Theirs' },
      })
    ).text();
    const token = tokenIn(created)!;
    const url = /<dt>URL<\/dt>\s*<dd><code>([^<]+)<\/code><\/dd>/.exec(created)![1]!;
    const id = url.split('/').at(-1)!;

    const other = await signedIn();
    const { csrf } = await trackersPage(other.browser);
    const foreign = await other.browser.request(`${t.baseUrl}/app/trackers/${id}/token`, { form: { csrf } });
    expect(foreign.status).toBe(404);
    expect(tokenIn(await foreign.text())).toBeUndefined();
    expect((await owntracksPoint(url, owner.user.username, token)).status).toBe(200);

    const services = await countRows(t.database, 'services');
    const forged = await other.browser.request(`${t.baseUrl}/app/trackers`, {
      form: { csrf: 'x'.repeat(43), type: 'owntracks', name: 'Forged' },
    });
    expect(forged.status).toBe(403);
    const rotateForged = await owner.browser.request(`${t.baseUrl}/app/trackers/${id}/token`, {
      form: { csrf: 'x'.repeat(43) },
    });
    expect(rotateForged.status).toBe(403);
    expect(await countRows(t.database, 'services')).toBe(services);
    expect((await owntracksPoint(url, owner.user.username, token)).status).toBe(200);
  });

  it('says what is wrong with the form beside it', async () => {
    const { browser } = await signedIn();
    const { csrf } = await trackersPage(browser);
    const response = await browser.request(`${t.baseUrl}/app/trackers`, {
      form: { csrf, type: 'owntracks', name: '  ' },
    });
    expect(response.status).toBe(400);
    const body = await response.text();
    expect(body).toContain(
      '<p class="error" role="alert" id="add-error">Give the tracker a name of 1 to 100 characters.</p>',
    );
    expect(body).toContain('aria-describedby="add-error"');
  });
});

describe('managing a tracker from the page', () => {
  async function withTracker() {
    const owner = await signedIn();
    const { csrf } = await trackersPage(owner.browser);
    const created = await (
      await owner.browser.request(`${t.baseUrl}/app/trackers`, { form: { csrf, type: 'owntracks', name: 'Phone' } })
    ).text();
    const token = tokenIn(created)!;
    const url = /<dt>URL<\/dt>\s*<dd><code>([^<]+)<\/code><\/dd>/.exec(created)![1]!;
    return { ...owner, csrf, token, url, id: url.split('/').at(-1)! };
  }
  const statusOf = (body: string) => /<dd class="tracker-status [a-z]+" data-status>([^<]+)<\/dd>/.exec(body)?.[1];

  it('tells the truth: waiting, working with a count, refused for a replaced token', async () => {
    const { browser, user, csrf, token, url, id } = await withTracker();
    expect(statusOf((await trackersPage(browser)).body)).toBe('Waiting for the first point.');
    expect((await owntracksPoint(url, user.username, token)).status).toBe(200);
    const working = (await trackersPage(browser)).body;
    expect(statusOf(working)).toBe('Working.');
    expect(working).toContain('<dd data-today>1</dd>');
    expect(working).not.toContain('<dd data-last>None yet</dd>');

    // "New token" asks first; the answer to the question makes it.
    const asked = await browser.request(`${t.baseUrl}/app/trackers/${id}/token`);
    expect(asked.status).toBe(200);
    const question = await asked.text();
    expect(question).toContain('A new token for Phone?');
    expect(tokenIn(question)).toBeUndefined();
    const rotated = await browser.request(`${t.baseUrl}/app/trackers/${id}/token`, { form: { csrf } });
    expect(rotated.status).toBe(200);
    expect((await owntracksPoint(url, user.username, token)).status).toBe(401);
    expect(statusOf((await trackersPage(browser)).body)).toMatch(
      /^Refused: the phone still sends a token that was replaced \(last at \d{4}-\d{2}-\d{2} \d{2}:\d{2}\)\./,
    );
  });

  it('renames, switches off (ingest refused with 403) and on, and deletes after asking', async () => {
    const { browser, user, csrf, token, url, id } = await withTracker();
    const off = await browser.request(`${t.baseUrl}/app/trackers/${id}`, { form: { csrf, name: 'Old phone' } });
    expect(off.status).toBe(200);
    const offPage = await off.text();
    expect(offPage).toContain('Saved Old phone: switched off.');
    expect(statusOf(offPage)).toBe('Switched off: the phone’s points are refused until you switch it on.');
    const refused = await owntracksPoint(url, user.username, token);
    expect(refused.status).toBe(403);
    expect((await refused.json()) as { code: string }).toMatchObject({ code: 'service_disabled' });
    const blank = await browser.request(`${t.baseUrl}/app/trackers/${id}`, {
      form: { csrf, name: ' ', enabled: 'on' },
    });
    expect(blank.status).toBe(400);
    const on = await browser.request(`${t.baseUrl}/app/trackers/${id}`, {
      form: { csrf, name: 'Old phone', enabled: 'on' },
    });
    expect(on.status).toBe(200);
    expect((await owntracksPoint(url, user.username, token)).status).toBe(200);

    const other = await signedIn();
    const { csrf: otherCsrf } = await trackersPage(other.browser);
    expect((await other.browser.request(`${t.baseUrl}/app/trackers/${id}/delete`)).status).toBe(404);
    const foreign = await other.browser.request(`${t.baseUrl}/app/trackers/${id}/delete`, {
      form: { csrf: otherCsrf },
    });
    expect(foreign.status).toBe(404);
    const renamed = await other.browser.request(`${t.baseUrl}/app/trackers/${id}`, {
      form: { csrf: otherCsrf, name: 'Mine now', enabled: 'on' },
    });
    expect(renamed.status).toBe(404);

    const asked = await browser.request(`${t.baseUrl}/app/trackers/${id}/delete`);
    expect(await asked.text()).toContain('Delete Old phone?');
    const forged = await browser.request(`${t.baseUrl}/app/trackers/${id}/delete`, { form: { csrf: 'x'.repeat(43) } });
    expect(forged.status).toBe(403);
    const deleted = await browser.request(`${t.baseUrl}/app/trackers/${id}/delete`, { form: { csrf } });
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toContain('Deleted Old phone. The points it sent stay in your history.');
    expect((await owntracksPoint(url, user.username, token)).status).toBe(401);
    expect(await t.database.db.selectFrom('services').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('says that a loopback address is one no phone can reach, and what to set', async () => {
    const { browser } = await signedIn();
    const body = (await trackersPage(browser)).body;
    expect(body).toContain('A phone cannot reach these addresses.');
    expect(body).toContain(`They point at <code>${t.baseUrl}</code>`);
  });
});
