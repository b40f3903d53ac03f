// Self-registration of apps (RFC 7591) and its limits (docs/oauth.md "Self-registration"): the
// operator's switch, what an app may register, how often one address may register, how the
// consent page presents an app that registered itself, and the purge of apps nobody approved.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Browser, authorizationRequest, formOf, runFlow } from '../../test/browser.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';
import { buildApp } from '../app.ts';
import { DAY_MS, purgeExpired, type HousekeepingDeps } from '../housekeeping/housekeeping.ts';
import { addClient } from './clients.logic.ts';

const register = (app: TestApp['app'], payload: object, remoteAddress = '192.0.2.1') =>
  app.inject({
    method: 'POST',
    url: '/oauth/register',
    headers: { 'content-type': 'application/json' },
    payload,
    remoteAddress,
  });

const app = (redirectUris: string[], extra: object = {}) => ({
  client_name: 'Trail Diary',
  redirect_uris: redirectUris,
  token_endpoint_auth_method: 'none',
  ...extra,
});

async function storedClients(t: TestApp): Promise<number> {
  const rows = await t.database.db.selectFrom('oauth_entities').select('id').where('kind', '=', 'Client').execute();
  return rows.length;
}

describe('dynamic client registration', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is open by default, for public clients', async () => {
    t = await buildTestApp();
    const response = await register(t.app, app(['https://app.example/cb'], { client_name: 'App' }));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ client_name: 'App', token_endpoint_auth_method: 'none' });
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.json()).toMatchObject({ registration_endpoint: 'http://waypost.test/oauth/register' });
  });

  it('can be closed by the operator', async () => {
    t = await buildTestApp({ env: { WAYPOST_CLIENT_REGISTRATION: 'closed' } });
    expect((await register(t.app, app(['https://app.example/cb']))).statusCode).toBe(404);
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).not.toHaveProperty('registration_endpoint');
  });
});

describe('what an app may register', () => {
  let t: TestApp;
  // The limit per address is tested below; here it stays out of the way.
  beforeAll(async () => {
    t = await buildTestApp({ env: { WAYPOST_CLIENT_REGISTRATION_LIMIT: '10000' } });
  });
  afterAll(() => t.close());

  const refused = async (payload: object, error: string, description: string) => {
    const before = await storedClients(t);
    const response = await register(t.app, payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual({ error, error_description: description });
    expect(await storedClients(t)).toBe(before);
  };
  const accepted = async (payload: object) => {
    const response = await register(t.app, payload);
    expect(response.statusCode).toBe(201);
    return response.json<{ client_id: string; redirect_uris: string[]; client_name?: string }>();
  };

  it("refuses the issue's flood: 1,000 redirect URIs in one app", async () => {
    const uris = Array.from({ length: 1000 }, (_, i) => `https://app.example/callback/${i}`);
    await refused(app(uris), 'invalid_redirect_uri', 'redirect_uris may hold at most 10 URIs');
  });

  it('takes at most 10 redirect URIs', async () => {
    const uris = Array.from({ length: 11 }, (_, i) => `https://app.example/cb/${i}`);
    await refused(app(uris), 'invalid_redirect_uri', 'redirect_uris may hold at most 10 URIs');
    expect((await accepted(app(uris.slice(0, 10)))).redirect_uris).toEqual(uris.slice(0, 10));
  });

  it('takes redirect URIs of at most 1,000 characters', async () => {
    const uri = (length: number) => `https://app.example/${'a'.repeat(length - 'https://app.example/'.length)}`;
    await refused(app([uri(1001)]), 'invalid_redirect_uri', 'redirect_uris may be at most 1000 characters each');
    expect((await accepted(app([uri(1000)]))).redirect_uris).toEqual([uri(1000)]);
  });

  it('takes names of at most 64 characters', async () => {
    await refused(
      app(['https://app.example/cb'], { client_name: 'n'.repeat(65) }),
      'invalid_client_metadata',
      'client_name may be at most 64 characters',
    );
    const emoji = '🗺️'.repeat(32); // 64 characters (code points), more UTF-16 units and bytes
    expect((await accepted(app(['https://app.example/cb'], { client_name: emoji }))).client_name).toBe(emoji);
  });

  it('takes at most 16,000 characters of metadata in all', async () => {
    const contacts = Array.from({ length: 800 }, (_, i) => `person${i}@app.example`);
    await refused(
      app(['https://app.example/cb'], { contacts }),
      'invalid_client_metadata',
      'client metadata may be at most 16000 characters of JSON',
    );
  });

  it('takes plain-http redirect URIs only on the loopback interface (RFC 8252 7.3)', async () => {
    const description =
      'redirect_uris may use http only on the loopback interface (127.0.0.1, [::1] or localhost, RFC 8252 7.3); use https elsewhere';
    for (const uri of [
      'http://app.example/cb',
      'http://192.0.2.10/cb',
      'http://127.0.0.1.app.example/cb',
      'http://localhost.app.example/cb',
      'http://10.0.0.1:8080/cb',
    ]) {
      await refused(app(['https://app.example/ok', uri]), 'invalid_redirect_uri', description);
    }
    for (const uri of [
      'http://127.0.0.1:49152/cb',
      'http://[::1]:49152/cb',
      'http://localhost:49152/cb',
      'https://app.example/cb',
      'https://192.0.2.10/cb',
    ]) {
      expect((await accepted(app([uri]))).redirect_uris).toEqual([uri]);
    }
    // RFC 8252 7.1: a native app's private-use scheme stays allowed.
    const native = app(['org.example.trail:/oauth/cb'], { application_type: 'native' });
    expect((await accepted(native)).redirect_uris).toEqual(['org.example.trail:/oauth/cb']);
  });

  it("refuses names that imitate Waypost's own", async () => {
    const description =
      "client_name must not look like Waypost's or this server's own name: an app that registers itself is a third party";
    for (const name of [
      'Waypost web',
      'WAYPOST',
      'Way post',
      'W a y p o s t',
      'way-post account',
      'Wаypost', // Cyrillic а
      'W@yp0st',
      'Ŵáýpöšt',
      'Ｗａｙｐｏｓｔ', // fullwidth
      'VVaypost',
      'waypost.test', // the server's own host in these tests
    ]) {
      await refused(app(['https://app.example/cb'], { client_name: name }), 'invalid_client_metadata', description);
    }
    expect((await accepted(app(['https://app.example/cb'], { client_name: 'Trail Diary' }))).client_name).toBe(
      'Trail Diary',
    );
  });

  it('refuses names with control or invisible characters', async () => {
    for (const name of ['Trail\u200bDiary', 'Trail \u202eyraiD', 'Trail\nDiary', 'Trail\u0000Diary']) {
      await refused(
        app(['https://app.example/cb'], { client_name: name }),
        'invalid_client_metadata',
        'client_name must not contain control or invisible characters',
      );
    }
  });
});

describe("a name that imitates the server's host", () => {
  it('is refused', async () => {
    const t = await buildTestApp({ env: { WAYPOST_BASE_URL: 'https://hub.alice.example' } });
    try {
      const response = await register(t.app, app(['https://app.example/cb'], { client_name: 'Hub.Alice.Example' }));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_client_metadata' });
      expect((await register(t.app, app(['https://app.example/cb'], { client_name: 'Alice' }))).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });
});

describe('registrations per address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const expectRefused = (response: Awaited<ReturnType<typeof register>>) => {
    expect(response.statusCode).toBe(429);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(response.json()).toEqual({
      type: 'urn:waypost:problem:too_many_registrations',
      title: 'Too Many Requests',
      status: 429,
      detail: `This address registered 10 apps within the hour; try again in ${retryAfter} seconds.`,
      code: 'too_many_registrations',
    });
  };

  it('are listed in /info', async () => {
    const info = (await t.app.inject({ url: '/info' })).json<{ limits: { rate_limits: { name: string }[] } }>();
    expect(info.limits.rate_limits.filter((limit) => limit.name === 'oauth_registrations')).toEqual([
      {
        name: 'oauth_registrations',
        limit: 10,
        window_seconds: 3600,
        per: 'ip',
      },
    ]);
  });

  it('are 10 an hour, however many arrive at once', async () => {
    const burst = await Promise.all(
      Array.from({ length: 30 }, () => register(t.app, app(['https://app.example/cb']), '198.51.100.7')),
    );
    expect(burst.filter((r) => r.statusCode === 201)).toHaveLength(10);
    const limited = burst.filter((r) => r.statusCode !== 201);
    expect(limited).toHaveLength(20);
    for (const response of limited) expectRefused(response);
    // Another address is not touched.
    expect((await register(t.app, app(['https://app.example/cb']), '198.51.100.8')).statusCode).toBe(201);
  });

  it('count an IPv6 client by its /64', async () => {
    for (let i = 1; i <= 10; i++) {
      expect((await register(t.app, app(['https://app.example/cb']), `2001:db8:7:7::${i}`)).statusCode).toBe(201);
    }
    expectRefused(await register(t.app, app(['https://app.example/cb']), '2001:db8:7:7:ffff:1:2:3'));
    expect((await register(t.app, app(['https://app.example/cb']), '2001:db8:7:8::1')).statusCode).toBe(201);
  });

  it('count only registrations that were stored', async () => {
    for (let i = 0; i < 12; i++) {
      const response = await register(t.app, app(['http://app.example/cb']), '203.0.113.9');
      expect(response.statusCode).toBe(400);
    }
    for (let i = 0; i < 10; i++) {
      expect((await register(t.app, app(['https://app.example/cb']), '203.0.113.9')).statusCode).toBe(201);
    }
    expectRefused(await register(t.app, app(['https://app.example/cb']), '203.0.113.9'));
  });

  it('are counted in the database: a second server on it sees the same count', async () => {
    const other = await buildApp({ config: t.config, database: t.database });
    await other.ready();
    try {
      for (let i = 0; i < 5; i++) {
        expect((await register(t.app, app(['https://app.example/cb']), '203.0.113.20')).statusCode).toBe(201);
        expect((await register(other, app(['https://app.example/cb']), '203.0.113.20')).statusCode).toBe(201);
      }
      expectRefused(await register(other, app(['https://app.example/cb']), '203.0.113.20'));
      expectRefused(await register(t.app, app(['https://app.example/cb']), '203.0.113.20'));
    } finally {
      await other.close();
    }
  });
});

/** A server on a loopback port, a person, and the steps of an authorization in a browser. */
function oauthServer() {
  const REDIRECT = 'http://127.0.0.1:1/callback'; // never contacted: the flow stops there
  const s = {} as {
    t: Awaited<ReturnType<typeof listeningTestApp>>;
    person: { username: string; password: string };
  };
  beforeAll(async () => {
    s.t = await listeningTestApp();
    s.person = await createTestUser(s.t.database);
  });
  afterAll(() => s.t.close());

  async function registerOverHttp(name: string): Promise<string> {
    const response = await fetch(`${s.t.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { client_id: string }).client_id;
  }

  const authorizeUrl = async (clientId: string) => {
    const as = { issuer: s.t.baseUrl, authorization_endpoint: `${s.t.baseUrl}/oauth/authorize` };
    return (await authorizationRequest(as, { clientId, redirectUri: REDIRECT, scope: 'create_post' })).url;
  };

  /** Signs in on the way and returns the consent page's HTML, and the sign-in page's. */
  async function consentPage(clientId: string): Promise<string> {
    return (await pages(clientId)).consent;
  }
  async function pages(clientId: string): Promise<{ signIn: string; consent: string }> {
    let signIn = '';
    const browser = new Browser();
    let next = await authorizeUrl(clientId);
    for (let i = 0; i < 10; i++) {
      const response = await browser.request(next);
      const location = response.headers.get('location');
      if (location) {
        next = new URL(location, next).href;
        continue;
      }
      const body = await response.text();
      const form = formOf(body);
      if (!form?.action.endsWith('/login')) return { signIn, consent: body };
      signIn = body;
      const signedIn = await browser.request(new URL(form.action, next).href, {
        form: { csrf: form.csrf, username: s.person.username, password: s.person.password },
      });
      next = new URL(signedIn.headers.get('location')!, next).href;
    }
    throw new Error('no consent page');
  }

  /** Signs in and allows; true when the app got a code. */
  const approve = async (clientId: string) => {
    const flow = await runFlow(new Browser(), await authorizeUrl(clientId), { redirectUri: REDIRECT, ...s.person });
    return flow.callback?.searchParams.has('code') === true;
  };

  return { s, REDIRECT, registerOverHttp, authorizeUrl, consentPage, pages, approve };
}

describe('the consent page', () => {
  const { s, REDIRECT, registerOverHttp, consentPage, pages } = oauthServer();

  it('marks an app that registered itself as a third party, with where it sends the person', async () => {
    const { signIn, consent: page } = await pages(await registerOverHttp('Trail Diary'));
    expect(signIn).toContain('The third-party app <strong>Trail Diary</strong> wants to use your Waypost account');
    expect(page).toContain('<h1>Allow the third-party app “Trail Diary” to use your account?</h1>');
    // The page's markup is formatted: compare its text with runs of white space as one space.
    expect(page.replace(/\s+/g, ' ')).toContain(
      '<p class="warning" role="note"> This app registered itself with this server: it is not part of Waypost, ' +
        'and the operator has not checked it. Its name is whatever it chose. Allow it only if you came here from ' +
        'the app yourself. Either way, you will be sent to <code>http://127.0.0.1:1</code>. </p>',
    );
  });

  it('does not mark an app the operator added', async () => {
    const added = await addClient(s.t.app.oauthProvider, s.t.database.db, s.t.config.secretKey, {
      name: 'Operator app',
      redirectUris: [REDIRECT],
      confidential: false,
    });
    const page = await consentPage(added.clientId);
    expect(page).toContain('<h1>Allow Operator app to use your account?</h1>');
    expect(page).not.toContain('third-party');
  });
});

describe('apps nobody approved', () => {
  const { s, registerOverHttp, authorizeUrl, approve } = oauthServer();

  it('are removed by housekeeping a day after their registration; approved ones stay', async () => {
    const before = Date.now();
    const used = await registerOverHttp('Used app');
    const unused = await registerOverHttp('Unused app');
    const after = Date.now();
    expect(await approve(used)).toBe(true);

    const deps: HousekeepingDeps = {
      db: s.t.database.db,
      dataDir: s.t.config.dataDir,
      jobRetentionDays: 7,
      deliveryRetentionDays: 90,
      tempFileRetentionHours: 24,
    };
    const clientIds = async () =>
      (
        await s.t.database.db
          .selectFrom('oauth_entities')
          .select('id')
          .where('kind', '=', 'Client')
          .orderBy('id')
          .execute()
      ).map((row) => row.id);
    expect((await purgeExpired(deps, before + DAY_MS - 1)).oauth_apps).toBe(0);
    expect(await clientIds()).toEqual([used, unused].sort());

    expect((await purgeExpired(deps, after + DAY_MS + 1)).oauth_apps).toBe(1);
    expect(await clientIds()).toEqual([used]);
    const gone = await new Browser().request(await authorizeUrl(unused));
    expect(gone.status).toBe(400);
    expect(await gone.text()).toContain('<code>invalid_client</code>');
    expect(await approve(used)).toBe(true);
  });
});
