// The OAuth server's storage (one table for every oidc-provider model), the web sessions of the
// sign-in, consent and account pages, and failed sign-ins for rate limiting. Portable DDL: text,
// bigint milliseconds, no JSON operators (payloads are parsed in JS).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_entities')
    // oidc-provider model name: AccessToken, RefreshToken, AuthorizationCode, Grant, Client, Session, ...
    .addColumn('kind', 'text', (col) => col.notNull())
    // The model id, or its SHA-256 for bearer values (tokens, codes, session cookies).
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('account_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('user_code', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('consumed_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_entities_pk', ['kind', 'id'])
    .execute();
  await db.schema.createIndex('oauth_entities_grant').on('oauth_entities').column('grant_id').execute();
  await db.schema
    .createIndex('oauth_entities_account')
    .on('oauth_entities')
    .columns(['account_id', 'kind', 'client_id'])
    .execute();
  await db.schema.createIndex('oauth_entities_uid').on('oauth_entities').columns(['kind', 'uid']).execute();
  await db.schema.createIndex('oauth_entities_expires').on('oauth_entities').column('expires_at').execute();

  await db.schema
    .createTable('web_sessions')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('id_hash', 'text', (col) => col.primaryKey())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();

  await db.schema
    .createTable('sign_in_failures')
    // `account:<username key>` or `ip:<address>`, hashed: no usernames or addresses at rest.
    .addColumn('key_hash', 'text', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_key').on('sign_in_failures').columns(['key_hash', 'at']).execute();
}
