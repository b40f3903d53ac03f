// The name a file was uploaded under (`media.file_name`), searched (docs/api.md "Search") while
// the medium is private. A file name is metadata the person did not write for an audience, like
// the EXIF that public copies lose (docs/privacy.md "Media files"): phones name photos after the
// device and the second they were taken ("PXL_20240501_143022.jpg", "WhatsApp Image ..."). So a
// public medium is searched by its caption alone, and a public search can never be asked about
// a file name. Media from before this migration, from services and from restores have none.
//
// The name goes into the index as its words: the separators file names use between words
// (`.`, `_`, `-`, ...) become spaces, so both engines see the same words (PostgreSQL's parser
// would otherwise keep "lake-sunset.jpg" whole as a host name) and a snippet shows them.
// The media triggers of migration 0034 are made again with the new body; nothing else changes.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const SLOTS = 65_536; // as migration 0034 numbers SQLite's documents

/** The file name's words: nested replace() because SQLite has no translate() or regexp_replace(). */
function words(column: string): string {
  let out = column;
  for (const separator of ['.', '_', '-', '+', '@', '~', ',', '(', ')', '[', ']'])
    out = `replace(${out}, '${separator}', ' ')`;
  return out;
}

/** A medium's searchable text: its caption, and its file name's words while it is private. */
function body(row: string): string {
  return `trim(coalesce(${row}.caption, '') || case when ${row}.scope = 'private' and ${row}.file_name is not null
    then ' ' || ${words(`${row}.file_name`)} else '' end)`;
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'move', 'update']) await sql`drop trigger ${sql.raw(`media_search_${op}`)}`.execute(db);
  const insert = sql`insert into search_docs (doc_id, user_id, kind, item_id, scope, time, body) values (
    (select coalesce(max(doc_id) + 1, new.time * ${sql.lit(SLOTS)}) from search_docs
      where doc_id >= new.time * ${sql.lit(SLOTS)} and doc_id < (new.time + 1) * ${sql.lit(SLOTS)}),
    new.user_id, 'media', new.id, new.scope, new.time, ${sql.raw(body('new'))});`;
  const forget = sql`delete from search_docs where kind = 'media' and item_id = old.id;`;
  const moved = sql.raw('old.id is not new.id or old.time is not new.time');
  await sql`create trigger media_search_insert after insert on media begin ${insert} end`.execute(db);
  await sql`create trigger media_search_move after update on media when ${moved} begin ${forget} ${insert} end`.execute(
    db,
  );
  await sql`create trigger media_search_update after update on media when not (${moved}) begin
    update search_docs set user_id = new.user_id, scope = new.scope, body = ${sql.raw(body('new'))}
    where kind = 'media' and item_id = new.id; end`.execute(db);
}

async function postgresTrigger(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace function waypost_search_media() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        delete from search_docs where kind = 'media' and item_id = old.id;
        return null;
      end if;
      insert into search_docs (user_id, kind, item_id, scope, time, body)
        values (new.user_id, 'media', new.id, new.scope, new.time, ${sql.raw(body('new'))})
        on conflict (kind, item_id) do update set user_id = excluded.user_id, scope = excluded.scope,
          time = excluded.time, body = excluded.body;
      if tg_op = 'UPDATE' and old.id <> new.id then
        delete from search_docs where kind = 'media' and item_id = old.id;
      end if;
      return null;
    end $$`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('media').addColumn('file_name', 'text').execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) await sqliteTriggers(db);
  else await postgresTrigger(db);
}
