// The sign-in and consent pages in a real browser: Debian's Chromium driven by playwright-core
// (.ci/run installs it). A person signs in, reads the permission list, clicks Allow and the
// client's redirect URI (a small real server on loopback) receives a code; or clicks Deny.
import { createServer, type Server } from 'node:http';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationRequest } from '../../test/browser.ts';
import { createTestUser } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';
import { addClient } from './clients.logic.ts';
import { PERMISSIONS } from '../core/permissions.ts';

// docs/design.md "Pitfalls": how Chromium runs on these machines.
const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
};
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let t: Awaited<ReturnType<typeof listeningTestApp>>;
let browser: Browser;
let callbackServer: Server;
let redirectUri: string;
let client: oauth.Client;
let as: oauth.AuthorizationServer;
let person: { username: string; password: string };

beforeAll(async () => {
  t = await listeningTestApp();
  person = await createTestUser(t.database, { username: 'walker', password: 'a walk in the park' });
  // The app's redirect URI: a real page on another loopback origin.
  callbackServer = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>App</title><h1>Back in the app</h1>');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callbackServer.address() as { port: number }).port}/callback`;
  const added = await addClient(t.app.oauthProvider, t.database.db, t.config.secretKey, {
    name: 'Photo <Frame>',
    redirectUris: [redirectUri],
    confidential: false,
  });
  client = { client_id: added.clientId, token_endpoint_auth_method: 'none' };
  const issuer = new URL(t.baseUrl);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  browser = await chromium.launch(CHROMIUM);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
  await t?.close();
});

async function start(scope: string) {
  const { url, verifier, state } = await authorizationRequest(as, { clientId: client.client_id, redirectUri, scope });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  // Sign in, by the labels a screen reader would announce.
  expect(await page.title()).toBe('Sign in · Waypost');
  await expect.poll(() => page.getByText('Photo <Frame> wants to use your Waypost account').count()).toBe(1);
  await page.getByLabel('Username').fill(person.username);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/oauth\/interaction\//);
  return { page, context, verifier, state };
}

describe('sign-in and consent in Chromium', () => {
  it('a person signs in, sees the permissions, clicks Allow; the app gets a code that works', async () => {
    const { page, context, verifier, state } = await start('get_private_scope create_post');
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Allow Photo <Frame> to use your account?');
    const items = await page
      .getByRole('list', { name: 'Requested permissions' })
      .getByRole('listitem')
      .allTextContents();
    expect(items).toEqual([
      `${PERMISSIONS.get_private_scope} (get_private_scope)`,
      `${PERMISSIONS.create_post} (create_post)`,
    ]);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    expect(await page.textContent('h1')).toBe('Back in the app');

    const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.scope?.split(' ').sort()).toEqual(['create_post', 'get_private_scope']);
    await context.close();
  });

  it('Deny sends the person back with access_denied', async () => {
    const { page, context, state } = await start('manage_views');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const url = new URL(page.url());
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe(state);
    expect(url.searchParams.get('iss')).toBe(t.baseUrl);
    await context.close();
  });

  it('a wrong password shows an alert and keeps the person on the sign-in page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/account`);
    await page.getByLabel('Username').fill(person.username);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The username or password is wrong.');
    await context.close();
  });
});
