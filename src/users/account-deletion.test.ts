// Deleting an account leaves no trace: distinctive strings and a distinctive file are written
// through the API, the person deletes the account on /account with their password, and then
// no table holds the account's id or any of the strings, the media folder holds no copy of
// the file, and (SQLite) neither do the raw database files: first as the deletion leaves them
// (secure_delete and the checkpoint it runs), then again after VACUUM. PostgreSQL's files are
// not reachable from here; every table is read instead.
import { accountLimitKey, signInLimits } from '../account/sign-in-limits.logic.ts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formOf } from '../../test/browser.ts';
import { createTestUser, DIALECT } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { keysUnder, objectBytes } from '../../test/storage.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
beforeAll(async () => {
  t = await listeningTestApp();
});
afterAll(() => t.close());

const MARK = 'QUOKKA7731';
const STRINGS = {
  post: `${MARK} post text`,
  caption: `${MARK} caption`,
  view: `${MARK} view name`,
  service: `${MARK} service name`,
  secret: `whsec_${Buffer.from(`${MARK}-webhook-secret-bytes!`).toString('base64')}`,
  bio: `${MARK} bio`,
  hook: `https://${MARK.toLowerCase()}.example/hook`,
};

/** Every row of every table of the application, as text. */
async function everyRow(): Promise<Map<string, string>> {
  const db = t.database.db;
  const tables =
    DIALECT === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows
      : (
          await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
        ).rows;
  const out = new Map<string, string>();
  for (const { name } of tables) {
    const { rows } = await sql`select * from ${sql.table(name)}`.execute(db);
    out.set(name, JSON.stringify(rows));
  }
  return out;
}

describe('deleting an account on /account', () => {
  it('leaves no trace in any table, the media folder or the raw database files', async () => {
    const bystander = await createTestUser(t.database);
    const person = await createTestUser(t.database, { username: `quokka_${Date.now() % 100000}`, bio: STRINGS.bio });
    const token = await tokenFor(t, person, [
      'create_post',
      'upload_media',
      'write_locations',
      'manage_views',
      'create_service',
      'manage_groups',
      'get_private_scope',
    ]);
    const api = async (url: string, payload: unknown, headers: Record<string, string> = {}) => {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${token}`, ...headers },
        payload: payload as object,
      });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json<{ id: string }>();
    };
    const service = await api('/services', {
      type: 'webhook',
      name: STRINGS.service,
      config: { url: STRINGS.hook, secret: STRINGS.secret },
    });
    const group = await api('/services/groups', { name: `${MARK} group`, service_ids: [service.id] });
    await api('/views', { name: STRINGS.view, scope: 'public' });
    const file = await sharp({ create: { width: 9, height: 7, channels: 3, background: '#7731aa' } })
      .png()
      .withMetadata({ exif: { IFD0: { ImageDescription: `${MARK} exif` } } })
      .toBuffer();
    const medium = (
      await uploadMedium(t, token, file, 'q.png', 'image/png', { caption: STRINGS.caption, scope: 'public' })
    ).json<{ id: string; sha256: string }>();
    // The public copy is made on first request by someone else, and kept beside the original.
    expect((await t.app.inject({ method: 'GET', url: `/media/id/${medium.id}/file` })).statusCode).toBe(200);
    await api(
      '/posts',
      { text: STRINGS.post, groups: [group.id], scope: 'public', media_ids: [medium.id] },
      { 'idempotency-key': `${MARK}-key` },
    );
    await api('/locations', [{ time: 1_700_000_000, lat: 12.3456, lon: 65.4321, scope: 'public' }]);
    // A bystander's own medium and post stay.
    const theirs = await tokenFor(t, bystander, ['upload_media', 'create_post']);
    const otherFile = await sharp({ create: { width: 5, height: 5, channels: 3, background: '#010101' } })
      .png()
      .toBuffer();
    expect((await uploadMedium(t, theirs, otherFile, 'o.png', 'image/png')).statusCode).toBe(201);

    // Signed in, one wrong password (refused, counted), then the right one.
    const browser = new Browser();
    const signInForm = formOf(await (await browser.request(`${t.baseUrl}/account`)).text())!;
    const signedIn = await browser.request(`${t.baseUrl}${signInForm.action}`, {
      form: { csrf: signInForm.csrf, username: person.username, password: person.password },
    });
    expect(signedIn.status).toBe(303);
    const account = await (await browser.request(`${t.baseUrl}/account`)).text();
    expect(account).toContain('<a href="/account/delete">Delete your account</a>');
    expect(account).toContain('<a href="/export" download>');
    const page = await browser.request(`${t.baseUrl}/account/delete`);
    expect(page.status).toBe(200);
    const form = formOf(await page.text())!;
    expect(form.action).toBe('/account/delete');
    expect((await browser.request(`${t.baseUrl}/account/delete`, { form: { password: person.password } })).status).toBe(
      403,
    );
    const wrong = await browser.request(`${t.baseUrl}/account/delete`, { form: { csrf: form.csrf, password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The password is wrong.');
    expect(await t.database.db.selectFrom('users').select('id').where('id', '=', person.id).execute()).toHaveLength(1);

    const before = await everyRow();
    expect(before.get('users')).toContain(person.id);
    expect(before.get('jobs')).toContain(STRINGS.post);
    expect(before.get('idempotency_keys')).toContain(STRINGS.post);
    // The wrong password above counted under this browser's device key (it signed in before),
    // an HMAC no one can link to the account without the device id; it ends with its window.
    expect(before.get('sign_in_limits')).toMatch(/"failures":1/);
    expect(before.get('oauth_entities')).toContain(person.id);
    const secretsColumn = (
      await t.database.db
        .selectFrom('services')
        .select('secrets')
        .where('id', '=', service.id)
        .executeTakeFirstOrThrow()
    ).secrets;
    // The store's objects (a folder's files or a bucket's objects, docs/design.md "Storage").
    const storage = mediaStorage(t.config);
    const mediaKeys = () => keysUnder(storage, 'media/');
    const originals = async () => {
      const found = [];
      for (const key of await mediaKeys()) if ((await objectBytes(storage, key))?.equals(file)) found.push(key);
      return found;
    };
    expect(await originals()).toHaveLength(1);
    const ownFiles = async () => (await mediaKeys()).filter((key) => key.includes(medium.sha256));
    expect((await ownFiles()).length).toBeGreaterThanOrEqual(3); // original, thumbnail, public copy

    const done = await browser.request(`${t.baseUrl}/account/delete`, {
      form: { csrf: form.csrf, password: person.password },
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Your account is deleted');
    expect((await browser.request(`${t.baseUrl}/account`)).status).toBe(200); // the sign-in form again
    const dead = await t.app.inject({ method: 'GET', url: '/views', headers: { authorization: `Bearer ${token}` } });
    expect(dead.statusCode).toBe(401);

    // Nothing keyed by the account, and none of the strings, in any table.
    const failureKey = accountLimitKey(signInLimits(t.config), person.username);
    const needles = [person.id, person.username, failureKey, secretsColumn, MARK, MARK.toLowerCase()];
    for (const [table, rows] of await everyRow()) {
      for (const needle of needles) expect(rows.includes(needle), `${needle} in ${table}`).toBe(false);
    }
    expect((await everyRow()).get('users')).toContain(bystander.id);
    expect(await originals()).toEqual([]);
    expect(await ownFiles()).toEqual([]);
    expect((await mediaKeys()).length).toBeGreaterThan(0); // the bystander's file

    if (DIALECT === 'sqlite') {
      const rawFiles = () =>
        readdirSync(t.config.dataDir)
          .filter((name) => name.startsWith('waypost.db'))
          .map((name) => join(t.config.dataDir, name));
      const expectNoTrace = (when: string) => {
        for (const path of rawFiles()) {
          const bytes = readFileSync(path);
          for (const needle of [...needles, STRINGS.secret]) {
            expect(bytes.includes(Buffer.from(needle)), `${needle} in ${path} ${when}`).toBe(false);
          }
        }
      };
      expect(rawFiles().length).toBeGreaterThan(0);
      // As the deletion left them: secure_delete zeroed the rows, the checkpoint emptied the log.
      expectNoTrace('after the deletion');
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(t.database.db);
      await sql`vacuum`.execute(t.database.db);
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(t.database.db);
      expectNoTrace('after VACUUM');
      expect(statSync(join(t.config.dataDir, 'waypost.db')).size).toBeGreaterThan(0);
    }
  });
});
