// Full-text search (docs/api.md "Search", docs/design.md "Search"): one row per searchable
// item in `search_docs`, kept by triggers on `posts` (text), `media` (caption) and `places`
// (name and town), so that every write, change, delete, import, restore and account deletion
// keeps the index in step without any code path having to remember it (the same idea as the
// counters of migration 0006).
//
// - SQLite: `search_fts`, an FTS5 table over `search_docs.body` (external content: the text is
//   stored once), kept by triggers on `search_docs`. The `unicode61` tokenizer with
//   `remove_diacritics 2` folds case and accents of Latin scripts.
// - PostgreSQL: `search_docs.doc`, a generated `tsvector` of the `simple` configuration over the
//   unaccented body, under a GIN index. `unaccent()` is only STABLE (its dictionary could
//   change), so a generated column cannot call it: `waypost_unaccent` names the dictionary and is
//   declared IMMUTABLE.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: a document's rowid is its time in milliseconds times SLOTS plus its place among the
 * documents of that millisecond, so the FTS5 index itself holds the documents newest first: a
 * search reads its matches in that order and stops after a page, however many match (a common
 * word matches most posts; sorting all of them would cost a second at a million posts). Times
 * are within +-1e14 ms (src/lib/time.ts), so the rowid stays within 63 bits.
 */
const SLOTS = 65_536;

/** What each item table contributes: its kind, its text, and the time a result is sorted by. */
const SOURCES = [
  { table: 'posts', body: (row: string) => `${row}.text`, time: (row: string) => `${row}.time`, scope: 'scope' },
  { table: 'media', body: (row: string) => `${row}.caption`, time: (row: string) => `${row}.time`, scope: 'scope' },
  {
    table: 'places',
    // A place is searched by the person's name for it and by its town.
    body: (row: string) => `trim(coalesce(${row}.name, '') || ' ' || coalesce(${row}.city, ''))`,
    time: (row: string) => `${row}.created_at`,
    // Places are never public (docs/api.md "Visits and trips").
    scope: null,
  },
] as const;

function scopeOf(source: (typeof SOURCES)[number], row: string): string {
  return source.scope === null ? `'private'` : `${row}.scope`;
}

async function docsTable(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  let table = db.schema.createTable('search_docs');
  if (!postgres) table = table.addColumn('doc_id', 'integer', (col) => col.primaryKey());
  table = table
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('item_id', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('time', 'bigint', (col) => col.notNull())
    .addColumn('body', 'text', (col) => col.notNull());
  if (postgres) {
    table = table
      .addColumn('doc', sql`tsvector`, (col) =>
        col.generatedAlwaysAs(sql`to_tsvector('simple'::regconfig, waypost_unaccent(body))`).stored(),
      )
      .addPrimaryKeyConstraint('search_docs_pk', ['kind', 'item_id'] as never);
  }
  await table.execute();
  if (!postgres) {
    await db.schema.createIndex('search_docs_item').on('search_docs').columns(['kind', 'item_id']).unique().execute();
  }
  if (postgres) {
    await db.schema.createIndex('search_docs_time').on('search_docs').columns(['user_id', 'time', 'item_id']).execute();
  }
}

async function sqliteIndex(db: Kysely<unknown>): Promise<void> {
  await sql`create virtual table search_fts using fts5(body, content='search_docs', content_rowid='doc_id',
    tokenize='unicode61 remove_diacritics 2')`.execute(db);
  // The FTS5 documentation's recipe for an external-content table: the old text is removed with
  // the special 'delete' command, which needs the values that were indexed.
  await sql`create trigger search_docs_ai after insert on search_docs begin
    insert into search_fts(rowid, body) values (new.doc_id, new.body); end`.execute(db);
  await sql`create trigger search_docs_ad after delete on search_docs begin
    insert into search_fts(search_fts, rowid, body) values ('delete', old.doc_id, old.body); end`.execute(db);
  await sql`create trigger search_docs_au after update of body on search_docs when old.body is not new.body begin
    insert into search_fts(search_fts, rowid, body) values ('delete', old.doc_id, old.body);
    insert into search_fts(rowid, body) values (new.doc_id, new.body); end`.execute(db);

  for (const source of SOURCES) {
    const { table } = source;
    const time = sql.raw(source.time('new'));
    const insert = sql`insert into search_docs (doc_id, user_id, kind, item_id, scope, time, body) values (
      (select coalesce(max(doc_id) + 1, ${time} * ${sql.lit(SLOTS)}) from search_docs
        where doc_id >= ${time} * ${sql.lit(SLOTS)} and doc_id < (${time} + 1) * ${sql.lit(SLOTS)}),
      new.user_id, ${sql.lit(table)}, new.id, ${sql.raw(scopeOf(source, 'new'))}, ${time}, ${sql.raw(source.body('new'))});`;
    const forget = sql`delete from search_docs where kind = ${sql.lit(table)} and item_id = old.id;`;
    const name = (op: string) => sql.raw(`${table}_search_${op}`);
    await sql`create trigger ${name('insert')} after insert on ${sql.table(table)} begin ${insert} end`.execute(db);
    await sql`create trigger ${name('delete')} after delete on ${sql.table(table)} begin ${forget} end`.execute(db);
    // A new time is a new place in the order, so a new doc_id; anything else changes the row.
    const moved = sql.raw(`old.id is not new.id or ${source.time('old')} is not ${source.time('new')}`);
    await sql`create trigger ${name('move')} after update on ${sql.table(table)} when ${moved}
      begin ${forget} ${insert} end`.execute(db);
    await sql`create trigger ${name('update')} after update on ${sql.table(table)} when not (${moved}) begin
      update search_docs set user_id = new.user_id, scope = ${sql.raw(scopeOf(source, 'new'))},
      body = ${sql.raw(source.body('new'))} where kind = ${sql.lit(table)} and item_id = new.id; end`.execute(db);
  }
  // What is there already, numbered as the triggers would number it.
  const rows = sql.join(
    SOURCES.map(
      (source) => sql`select t.user_id, ${sql.lit(source.table)} as kind, t.id as item_id,
        ${sql.raw(scopeOf(source, 't'))} as scope, ${sql.raw(source.time('t'))} as time,
        ${sql.raw(source.body('t'))} as body from ${sql.table(source.table)} t`,
    ),
    sql` union all `,
  );
  await sql`insert into search_docs (doc_id, user_id, kind, item_id, scope, time, body)
    select time * ${sql.lit(SLOTS)} + row_number() over (partition by time order by item_id) - 1,
    user_id, kind, item_id, scope, time, body from (${rows}) r`.execute(db);
}

async function postgresIndex(db: Kysely<unknown>): Promise<void> {
  for (const source of SOURCES) {
    const { table } = source;
    const fn = sql.raw(`waypost_search_${table}`);
    await sql`create function ${fn}() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          delete from search_docs where kind = ${sql.lit(table)} and item_id = old.id;
          return null;
        end if;
        insert into search_docs (user_id, kind, item_id, scope, time, body)
          values (new.user_id, ${sql.lit(table)}, new.id, ${sql.raw(scopeOf(source, 'new'))},
            ${sql.raw(source.time('new'))}, ${sql.raw(source.body('new'))})
          on conflict (kind, item_id) do update set user_id = excluded.user_id, scope = excluded.scope,
            time = excluded.time, body = excluded.body;
        if tg_op = 'UPDATE' and old.id <> new.id then
          delete from search_docs where kind = ${sql.lit(table)} and item_id = old.id;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_search`)} after insert or update or delete on ${sql.table(table)}
      for each row execute function ${fn}()`.execute(db);
    await backfill(db, source);
  }
  await sql`create index search_docs_doc on search_docs using gin (doc)`.execute(db);
}

async function backfill(db: Kysely<unknown>, source: (typeof SOURCES)[number]): Promise<void> {
  await sql`insert into search_docs (user_id, kind, item_id, scope, time, body)
    select t.user_id, ${source.table}, t.id, ${sql.raw(scopeOf(source, 't'))}, ${sql.raw(source.time('t'))},
    ${sql.raw(source.body('t'))} from ${sql.table(source.table)} t`.execute(db);
}

async function unaccentFunction(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists unaccent`.execute(db);
  // Named with the extension's own schema, so the function means the same whatever the
  // search_path of the session that calls it.
  const { rows } = await sql<{ schema: string }>`select extnamespace::regnamespace::text as schema
    from pg_extension where extname = 'unaccent'`.execute(db);
  const schema = sql.id(rows[0]!.schema);
  await sql`create function waypost_unaccent(text) returns text language sql immutable strict parallel safe
    as $$ select ${schema}.unaccent(${sql.lit(`${rows[0]!.schema}.unaccent`)}::regdictionary, $1) $$`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = !(db.getExecutor().adapter instanceof SqliteAdapter);
  if (postgres) await unaccentFunction(db);
  await docsTable(db, postgres);
  if (postgres) await postgresIndex(db);
  else await sqliteIndex(db);
}
