// `users.auth_version` goes up in the same transaction as every change that can end or narrow
// an access token of the person: a token, refresh token or grant deleted (revocation, sign-out
// of an app, a spent refresh token reused, housekeeping) or rewritten (a permission dropped, a
// refresh token consumed). Each server process keeps what it learned about a token beside the
// version it saw (src/oauth/bearer.ts); one read of the person's row per request tells every
// process sharing the database that its copy is stale. Issuing a new token moves nothing.
// Written by triggers, so no code path (the OAuth server, the CLI, account deletion) can forget.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const KINDS = sql.raw(`('AccessToken', 'RefreshToken', 'Grant')`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('auth_version', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const bump = (row: 'new' | 'old') =>
      sql`update users set auth_version = auth_version + 1 where id = ${sql.raw(row)}.account_id;`;
    await sql`create trigger oauth_entities_auth_delete after delete on oauth_entities
      when old.kind in ${KINDS} and old.account_id is not null begin ${bump('old')} end`.execute(db);
    await sql`create trigger oauth_entities_auth_update after update on oauth_entities
      when old.kind in ${KINDS} begin ${bump('old')} ${bump('new')} end`.execute(db);
    return;
  }
  // PostgreSQL: once per statement over its transition table, so purging a thousand expired
  // tokens touches each person's row once.
  await sql`create function waypost_auth_version() returns trigger language plpgsql as $$
    begin
      update users u set auth_version = u.auth_version + 1
        where u.id in (select account_id from old_rows where kind in ${KINDS} and account_id is not null);
      return null;
    end $$`.execute(db);
  await sql`create trigger oauth_entities_auth_delete after delete on oauth_entities
    referencing old table as old_rows for each statement execute function waypost_auth_version()`.execute(db);
  await sql`create trigger oauth_entities_auth_update after update on oauth_entities
    referencing old table as old_rows for each statement execute function waypost_auth_version()`.execute(db);
}
