// All SQL over the oauth_entities table: the oidc-provider adapter's storage, and the queries
// the account page, the bearer check and housekeeping need.
import type { Db } from '../db/database.ts';
import { runFixed, slot } from '../db/fixed.ts';
import type { OAuthEntitiesTable } from '../db/schema.ts';

export type EntityRow = Pick<OAuthEntitiesTable, 'payload' | 'grant_id' | 'consumed_at'>;

export async function upsertEntity(db: Db, row: Omit<OAuthEntitiesTable, 'consumed_at'>): Promise<void> {
  await db
    .insertInto('oauth_entities')
    .values({ ...row, consumed_at: null })
    .onConflict((oc) =>
      oc.columns(['kind', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        account_id: row.account_id,
        client_id: row.client_id,
        uid: row.uid,
        user_code: row.user_code,
        expires_at: row.expires_at,
      }),
    )
    .execute();
}

/** A live (unexpired) entity by one of its keys. */
export function findEntity(
  db: Db,
  kind: string,
  by: 'id' | 'uid' | 'user_code',
  value: string,
  now: number,
): Promise<EntityRow | undefined> {
  return db
    .selectFrom('oauth_entities')
    .select(['payload', 'grant_id', 'consumed_at'])
    .where('kind', '=', kind)
    .where(by, '=', value)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

/** Marks a code or refresh token used; false when it already was (or is gone). Atomic. */
export async function consumeEntity(db: Db, kind: string, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_entities')
    .set({ consumed_at: now })
    .where('kind', '=', kind)
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function grantIdOf(db: Db, kind: string, id: string): Promise<string | null> {
  const row = await db
    .selectFrom('oauth_entities')
    .select('grant_id')
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.grant_id ?? null;
}

export async function deleteEntity(db: Db, kind: string, id: string): Promise<void> {
  await db.deleteFrom('oauth_entities').where('kind', '=', kind).where('id', '=', id).execute();
}

export async function deleteEntitiesOfGrant(db: Db, kind: string, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_entities').where('kind', '=', kind).where('grant_id', '=', grantId).execute();
}

/** The grant and everything issued under it, in one statement (a Grant row carries its own id). */
export async function deleteGrantEverywhere(db: Db, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_entities').where('grant_id', '=', grantId).execute();
}

/** The newest live grant an account gave a client. */
export async function findGrantIdFor(
  db: Db,
  accountId: string,
  clientId: string,
  now: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('oauth_entities')
    .select('id')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'Grant')
    .where('client_id', '=', clientId)
    .where('expires_at', '>', now)
    .orderBy('expires_at', 'desc')
    .executeTakeFirst();
  return row?.id;
}

export interface GrantListRow {
  id: string;
  client_id: string | null;
  payload: string;
}

export function listGrantRows(db: Db, accountId: string, now: number): Promise<GrantListRow[]> {
  return db
    .selectFrom('oauth_entities')
    .select(['id', 'client_id', 'payload'])
    .where('account_id', '=', accountId)
    .where('kind', '=', 'Grant')
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute();
}

/** Stores a client's metadata (never its secret: that is derived, see clients.logic.ts). */
export async function saveClient(db: Db, clientId: string, metadata: Record<string, unknown>): Promise<void> {
  const { client_secret: _secret, ...stored } = metadata;
  await upsertEntity(db, {
    kind: 'Client',
    id: clientId,
    payload: JSON.stringify(stored),
    grant_id: null,
    account_id: null,
    client_id: clientId,
    uid: null,
    user_code: null,
    expires_at: null,
  });
}

/** Every stored client (payload JSON), for `waypost client list`. */
export function listClientRows(db: Db): Promise<{ id: string; payload: string }[]> {
  return db.selectFrom('oauth_entities').select(['id', 'payload']).where('kind', '=', 'Client').orderBy('id').execute();
}

/** A client and every grant and token it holds. */
export async function deleteClientEverywhere(db: Db, clientId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('oauth_entities').where('client_id', '=', clientId).where('kind', '!=', 'Client').execute();
    const result = await trx
      .deleteFrom('oauth_entities')
      .where('kind', '=', 'Client')
      .where('id', '=', clientId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  });
}

/** Browser sessions of the authorization server for an account (signing out ends them). */
export async function deleteProviderSessions(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('oauth_entities').where('account_id', '=', accountId).where('kind', '=', 'Session').execute();
}

/** The access and refresh tokens of a grant (DELETE /permissions rewrites their scope). */
export async function listTokenRowsOfGrant(
  db: Db,
  grantId: string,
): Promise<{ kind: string; id: string; payload: string }[]> {
  return db
    .selectFrom('oauth_entities')
    .select(['kind', 'id', 'payload'])
    .where('grant_id', '=', grantId)
    .where('kind', 'in', ['AccessToken', 'RefreshToken'])
    .execute();
}

export async function updatePayload(db: Db, kind: string, id: string, payload: string): Promise<void> {
  await db.updateTable('oauth_entities').set({ payload }).where('kind', '=', kind).where('id', '=', id).execute();
}

/** oidc-provider never deletes expired rows itself. Clients have a purge of their own (below). */
export async function purgeExpiredEntities(db: Db, now: number): Promise<number> {
  const result = await db
    .deleteFrom('oauth_entities')
    .where('expires_at', '<', now)
    .where('kind', '!=', 'Client')
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A person approved this client (a Grant): it stays, unless it is already past its day. */
export async function keepClient(db: Db, clientId: string, now: number): Promise<void> {
  await db
    .updateTable('oauth_entities')
    .set({ expires_at: null })
    .where('kind', '=', 'Client')
    .where('id', '=', clientId)
    .where('expires_at', '>', now)
    .execute();
}

/**
 * Apps that registered themselves and that nobody approved in their first day. With no Grant
 * they hold no tokens or codes either, so the Client row is all there is.
 */
export async function purgeUnapprovedClients(db: Db, now: number): Promise<number> {
  const result = await db
    .deleteFrom('oauth_entities')
    .where('kind', '=', 'Client')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findClientPayloads(db: Db, clientIds: string[]): Promise<Map<string, string>> {
  if (clientIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('oauth_entities')
    .select(['id', 'payload'])
    .where('kind', '=', 'Client')
    .where('id', 'in', clientIds)
    .execute();
  return new Map(rows.map((row) => [row.id, row.payload]));
}

/** What a cached access token is checked against on every request (migration 0014). */
export async function findAuthState(
  db: Db,
  userId: string,
): Promise<{ username: string; auth_version: number } | undefined> {
  // Every request with a token reads it: compiled once (src/db/fixed.ts).
  const build = () =>
    db.selectFrom('users').select(['username', 'auth_version']).where('id', '=', slot<string>(0)).compile();
  const [state] = await runFixed(db, 'auth state', build, [userId]);
  return state;
}
