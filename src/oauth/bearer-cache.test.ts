// Each server process remembers what a token stands for (src/oauth/bearer.ts). These tests
// run two apps on one database, as two processes behind a balancer would, and show that every
// way of ending or narrowing a token through one is seen by the other on the very next request.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { openDatabase, type Database } from '../db/database.ts';
import type { TokenGrant } from '../core/caller.ts';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { tokenFor } from '../../test/tokens.ts';
import { cachedBearerResolver } from './bearer.ts';
import { revokeAuthorizedApp } from './grants.logic.ts';

let t: TestApp;
let otherDatabase: Database;
let other: FastifyInstance;

beforeAll(async () => {
  t = await buildTestApp();
  otherDatabase = openDatabase(
    t.databaseUrl ? { url: t.databaseUrl, poolSize: 2 } : { sqlitePath: join(t.config.dataDir, 'waypost.db') },
  );
  other = await buildApp({ config: t.config, database: otherDatabase });
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await otherDatabase.close();
  await t.close();
});

let user: { id: string; username: string };
let token: string;
const read = (app: FastifyInstance) =>
  app.inject({ url: '/locations/private', headers: { authorization: `Bearer ${token}` } });

beforeEach(async () => {
  user = await createTestUser(t.database);
  token = await tokenFor(t, user, ['get_private_scope', 'get_settings']);
  // Both processes have now seen the token and keep it.
  expect((await read(t.app)).statusCode).toBe(200);
  expect((await read(other)).statusCode).toBe(200);
});

describe('a token kept by a process', () => {
  it('fails on the next request once revoked through another process', async () => {
    const revoke = await other.inject({
      method: 'POST',
      url: '/oauth/revoke',
      payload: new URLSearchParams({ token, client_id: 'test-client' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(revoke.statusCode).toBe(200);
    const response = await read(t.app);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid_token' });
  });

  it('loses a permission dropped through another process on the next request', async () => {
    const drop = await other.inject({
      method: 'DELETE',
      url: '/permissions/get_private_scope',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(drop.statusCode).toBe(204);
    const response = await read(t.app);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
    // What it still holds keeps working.
    const settings = await t.app.inject({ url: '/settings', headers: { authorization: `Bearer ${token}` } });
    expect(settings.statusCode).toBe(200);
  });

  it('fails once the person revokes the app on the account page', async () => {
    const grants = await t.app.inject({ url: '/permissions', headers: { authorization: `Bearer ${token}` } });
    expect(grants.statusCode).toBe(200);
    const grantId = (await resolveGrant(token))!.grantId;
    await revokeAuthorizedApp(otherDatabase.db, user.id, grantId);
    expect((await read(t.app)).statusCode).toBe(401);
  });

  it('fails once the account is deleted', async () => {
    const deleted = await otherDatabase.db.deleteFrom('users').where('id', '=', user.id).executeTakeFirst();
    expect(deleted.numDeletedRows).toBe(1n);
    expect((await read(t.app)).statusCode).toBe(401);
  });

  it("is not disturbed by another person's revocation", async () => {
    const stranger = await createTestUser(t.database);
    const strangerToken = await tokenFor(t, stranger, ['get_private_scope']);
    await other.inject({
      method: 'POST',
      url: '/oauth/revoke',
      payload: new URLSearchParams({ token: strangerToken, client_id: 'test-client' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect((await read(t.app)).statusCode).toBe(200);
  });
});

async function resolveGrant(value: string) {
  const { bearerResolver } = await import('./bearer.ts');
  return bearerResolver(t.app.oauthProvider)(value);
}

describe('the cache on its own', () => {
  let calls: number;
  let clock: number;
  let answer: TokenGrant | undefined;
  const resolveCounting = async () => {
    calls += 1;
    return answer;
  };
  afterEach(() => {
    answer = undefined;
  });

  it('resolves a token once, checks only the version afterwards, and drops it at expiry', async () => {
    const owner = await createTestUser(t.database);
    calls = 0;
    clock = 1_000;
    answer = {
      userId: owner.id,
      clientId: 'c',
      grantId: 'g',
      permissions: new Set(['get_settings']),
      expiresAt: 5_000,
    };
    const resolve = cachedBearerResolver(t.database.db, resolveCounting, { now: () => clock });
    expect((await resolve('a-token'))?.username).toBe(owner.username);
    // Resolved twice the first time: before and after reading the version.
    expect(calls).toBe(2);
    expect((await resolve('a-token'))?.userId).toBe(owner.id);
    expect(calls).toBe(2);
    clock = 5_000;
    answer = undefined; // the OAuth server no longer knows it either
    expect(await resolve('a-token')).toBeUndefined();
    expect(calls).toBe(3);
  });

  it('serves requests that use one token at the same time from the copy, each checking the version', async () => {
    const owner = await createTestUser(t.database);
    calls = 0;
    clock = 1_000;
    answer = { userId: owner.id, clientId: 'c', grantId: 'g', permissions: new Set(), expiresAt: 9_000 };
    const resolve = cachedBearerResolver(t.database.db, resolveCounting, { now: () => clock });
    await resolve('shared');
    expect(calls).toBe(2);
    // Ten at once, as an app with ten connections sends them: none resolves the token again.
    const all = await Promise.all(Array.from({ length: 10 }, () => resolve('shared')));
    expect(all.map((auth) => auth?.userId)).toEqual(Array(10).fill(owner.id));
    expect(calls).toBe(2);
    // A revocation moves the person's version: every request after it, at once or not, asks
    // the OAuth server again and gets nothing.
    await t.database.db
      .updateTable('users')
      .set((eb) => ({ auth_version: eb('auth_version', '+', 1) }))
      .where('id', '=', owner.id)
      .execute();
    answer = undefined;
    const after = await Promise.all(Array.from({ length: 10 }, () => resolve('shared')));
    expect(after).toEqual(Array(10).fill(undefined));
    expect(calls).toBe(12);
    expect(await resolve('shared')).toBeUndefined();
    expect(calls).toBe(13);
  });

  it('keeps at most the given number of tokens, dropping the least recently used', async () => {
    const owner = await createTestUser(t.database);
    calls = 0;
    clock = 1_000;
    answer = { userId: owner.id, clientId: 'c', grantId: 'g', permissions: new Set(), expiresAt: 9_000 };
    const resolve = cachedBearerResolver(t.database.db, resolveCounting, { size: 2, now: () => clock });
    await resolve('one');
    await resolve('two');
    await resolve('one'); // now the most recent
    await resolve('three'); // drops 'two'
    expect(calls).toBe(6);
    await resolve('one');
    await resolve('three');
    expect(calls).toBe(6);
    await resolve('two');
    expect(calls).toBe(8);
  });
});
