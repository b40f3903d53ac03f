// Changing one's password through /account/password over HTTP, on both databases: the form for
// a signed-in person only, CSRF, each error beside its field with the exact status, the change
// itself (the old password stops working, the new one works), every other browser signed out
// and this one kept signed in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formOf } from '../../test/browser.ts';
import { createTestUser } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';
import { authenticate } from '../users/users.logic.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
beforeAll(async () => {
  t = await listeningTestApp();
});
afterAll(() => t.close());

async function signedIn(username: string, password: string): Promise<Browser> {
  const browser = new Browser();
  const form = formOf(await (await browser.request(`${t.baseUrl}/account`)).text())!;
  const response = await browser.request(`${t.baseUrl}${form.action}`, {
    form: { csrf: form.csrf, username, password },
  });
  expect(response.status).toBe(303);
  return browser;
}

async function passwordForm(browser: Browser): Promise<{ status: number; body: string; csrf: string }> {
  const response = await browser.request(`${t.baseUrl}/account/password`);
  const body = await response.text();
  return { status: response.status, body, csrf: formOf(body)?.csrf ?? '' };
}

const send = (browser: Browser, fields: Record<string, string>) =>
  browser.request(`${t.baseUrl}/account/password`, { form: fields });

describe('changing the password in the web app', () => {
  it('is a form for the signed-in person; signed out, the sign-in form comes back to it', async () => {
    const stranger = new Browser();
    const asked = await stranger.request(`${t.baseUrl}/account/password`);
    expect(asked.status).toBe(200);
    expect(formOf(await asked.text())?.action).toBe('/account/sign-in?next=%2Faccount%2Fpassword');

    const person = await createTestUser(t.database);
    const browser = await signedIn(person.username, person.password);
    const { status, body } = await passwordForm(browser);
    expect(status).toBe(200);
    expect(body).toContain('<h1>Change your password</h1>');
    for (const label of ['Current password', 'New password', 'New password again']) expect(body).toContain(label);
    expect(body).toContain('autocomplete="current-password"');
    const apps = await (await browser.request(`${t.baseUrl}/account`)).text();
    expect(apps).toContain('<a href="/account/password">Change your password</a>');
  });

  it('shows each error beside its field and changes nothing', async () => {
    const person = await createTestUser(t.database);
    const browser = await signedIn(person.username, person.password);
    const { csrf } = await passwordForm(browser);

    const forged = await send(browser, {
      current: person.password,
      password: 'brand new pass',
      password_again: 'brand new pass',
    });
    expect(forged.status).toBe(403);

    const short = await send(browser, { csrf, current: person.password, password: 'short', password_again: 'short' });
    expect(short.status).toBe(400);
    const shortPage = await short.text();
    expect(shortPage).toContain(
      '<span class="field-error" id="password-error">The new password must be at least 8 characters.</span>',
    );
    expect(shortPage).toMatch(
      /id="password"[^>]*aria-describedby="password-help password-error"[^>]*aria-invalid="true"/,
    );

    const differ = await send(browser, {
      csrf,
      current: person.password,
      password: 'brand new pass',
      password_again: 'other pass!',
    });
    expect(differ.status).toBe(400);
    expect(await differ.text()).toContain(
      '<span class="field-error" id="password_again-error">The two new passwords differ.</span>',
    );

    const wrong = await send(browser, {
      csrf,
      current: 'not my password',
      password: 'brand new pass',
      password_again: 'brand new pass',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain(
      '<span class="field-error" id="current-error">This is not your current password.</span>',
    );
    expect(await authenticate(t.database.db, person.username, person.password)).toMatchObject({ id: person.id });
  });

  it('changes it, signs out every other browser and keeps this one signed in', async () => {
    const person = await createTestUser(t.database);
    const elsewhere = await signedIn(person.username, person.password);
    const browser = await signedIn(person.username, person.password);
    const { csrf } = await passwordForm(browser);

    const changed = await send(browser, {
      csrf,
      current: person.password,
      password: 'brand new pass',
      password_again: 'brand new pass',
    });
    expect(changed.status).toBe(303);
    expect(changed.headers.get('location')).toBe('/account/password?changed=1');
    const done = await browser.request(`${t.baseUrl}/account/password?changed=1`);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Your password is changed. Every other browser signed in as you is signed out');

    expect(await authenticate(t.database.db, person.username, person.password)).toBeUndefined();
    expect(await authenticate(t.database.db, person.username, 'brand new pass')).toMatchObject({ id: person.id });
    // This browser's new session works (its forms too); the other browser is at the sign-in form.
    const settings = await (await browser.request(`${t.baseUrl}/app/settings`)).text();
    expect(settings).toContain(`Signed in as <strong>${person.username}</strong>`);
    const other = await (await elsewhere.request(`${t.baseUrl}/app/settings`)).text();
    expect(formOf(other)?.action).toBe('/account/sign-in?next=%2Fapp%2Fsettings');
    const sessions = await t.database.db
      .selectFrom('web_sessions')
      .select('user_id')
      .where('user_id', '=', person.id)
      .execute();
    expect(sessions).toHaveLength(1);
  });
});
