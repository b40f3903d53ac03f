// The storage adapter on its own: hashed ids, the atomic consume that settles a race between
// two redemptions of one code, expiry, and the purge of expired rows.
import { errors } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { createAdapter } from './adapter.ts';
import { deleteGrantEverywhere, purgeExpiredEntities } from './oauth.repo.ts';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
  await migrateToLatest(test.database);
});
afterAll(async () => {
  await test.database.close();
  await test.drop();
});

const adapterClass = () =>
  createAdapter(test.database.db, {
    onReplay: async (kind, grantId) => {
      if (grantId) await deleteGrantEverywhere(test.database.db, grantId);
      throw new errors.InvalidGrant(`${kind} already used`);
    },
    clientSecret: (clientId) => `secret-of-${clientId}`,
    unapprovedClientTtlMs: 24 * 60 * 60 * 1000,
  });

describe('the oidc-provider adapter', () => {
  it('stores bearer values hashed, finds them by value, and a second consume() kills the grant', async () => {
    const Adapter = adapterClass();
    const grants = new Adapter('Grant');
    const codes = new Adapter('AuthorizationCode');
    await grants.upsert('g1', { jti: 'g1', kind: 'Grant', accountId: 'a', clientId: 'c' }, 60);
    await codes.upsert('the-code', { jti: 'the-code', kind: 'AuthorizationCode', grantId: 'g1' }, 60);

    const row = await test.database.db
      .selectFrom('oauth_entities')
      .selectAll()
      .where('kind', '=', 'AuthorizationCode')
      .executeTakeFirstOrThrow();
    expect(row.id).toBe(sha256Hex('the-code'));
    expect(row.payload).not.toContain('the-code');
    expect((await codes.find('the-code'))?.jti).toBe('the-code');
    expect(await codes.find(sha256Hex('the-code'))).toBeUndefined();

    // Two redemptions that both read "not consumed": only the first consume() wins.
    await codes.consume('the-code');
    expect((await codes.find('the-code'))?.consumed).toBeTypeOf('number');
    await expect(codes.consume('the-code')).rejects.toBeInstanceOf(errors.InvalidGrant);
    expect(await grants.find('g1')).toBeUndefined();
    expect(await codes.find('the-code')).toBeUndefined();
  });

  it('derives a confidential client secret on find and never stores one', async () => {
    const clients = new (adapterClass())('Client');
    await clients.upsert('rs', {
      client_id: 'rs',
      client_secret: 'should-not-be-stored',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const row = await test.database.db
      .selectFrom('oauth_entities')
      .select('payload')
      .where('kind', '=', 'Client')
      .executeTakeFirstOrThrow();
    expect(row.payload).not.toContain('should-not-be-stored');
    expect((await clients.find('rs'))?.client_secret).toBe('secret-of-rs');
  });

  it('does not find expired rows, and the housekeeping purge deletes them', async () => {
    const tokens = new (adapterClass())('AccessToken');
    await tokens.upsert('old', { jti: 'old', kind: 'AccessToken' }, -1);
    await tokens.upsert('fresh', { jti: 'fresh', kind: 'AccessToken' }, 60);
    expect(await tokens.find('old')).toBeUndefined();
    expect(await purgeExpiredEntities(test.database.db, Date.now())).toBeGreaterThanOrEqual(1);
    const left = await test.database.db
      .selectFrom('oauth_entities')
      .select('id')
      .where('kind', '=', 'AccessToken')
      .execute();
    expect(left).toEqual([{ id: sha256Hex('fresh') }]);
  });
});
