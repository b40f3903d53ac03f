// The search query on each engine (docs/api.md "Search"): the rows of `search_docs` (migration
// 0034) whose text matches, one person's, of the scopes and kinds asked for, newest first and
// keyset-paged on (time, item_id) like every collection (src/items/items.repo.ts).
import { SqliteAdapter, sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ScopeValue, SearchDocsTable } from '../db/schema.ts';
import type { PageQuery } from '../items/items.repo.ts';
import { invalidCursor } from '../core/cursors.ts';
import { fts5Query, tsQuery, type Term } from './search.query.ts';
import type { SearchKind } from './search.schemas.ts';

export type SearchRow = Pick<SearchDocsTable, 'kind' | 'time' | 'body'> & {
  id: string;
  /** Where the next page continues after (a cursor's `id`). */
  key: string;
};

export interface SearchFilter {
  userId: string;
  scopes: readonly ScopeValue[];
  kinds: readonly SearchKind[];
  terms: readonly Term[];
}

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

/** As migration 0034 numbers SQLite's documents: time in ms times SLOTS plus the place within the ms. */
const SLOTS = 65_536n;

/**
 * A page of matches, newest first, each with the key the next page continues after: on SQLite
 * the document's rowid (which orders it), on PostgreSQL the item's id (time, id as everywhere).
 */
export async function selectMatches(
  db: Db,
  filter: SearchFilter,
  page: PageQuery,
): Promise<{ rows: SearchRow[]; more: boolean }> {
  const conditions: Expression<SqlBool>[] = [
    sql<SqlBool>`${sql.ref('d.user_id')} = ${filter.userId}`,
    sql<SqlBool>`${sql.ref('d.scope')} in (${sql.join([...filter.scopes])})`,
    sql<SqlBool>`${sql.ref('d.kind')} in (${sql.join([...filter.kinds])})`,
  ];
  const limit = page.count + 1;
  const { rows } = isSqlite(db)
    ? await sqliteMatches(db, filter, page, conditions, limit)
    : await postgresMatches(db, filter, page, conditions, limit);
  return { rows: rows.slice(0, page.count), more: rows.length > page.count };
}

function sqliteMatches(
  db: Db,
  filter: SearchFilter,
  page: PageQuery,
  conditions: Expression<SqlBool>[],
  limit: number,
) {
  // The rowid bounds go to FTS5 itself, which then walks its matches from the newest down: the
  // CROSS JOIN keeps it the outer loop, and each match is checked against the owner, scope and
  // kind until a page is full.
  const rowid = sql.ref('f.rowid');
  // Rowids pass 2^53: they travel as BigInt (and come back as text), never as a lossy number.
  const first = (ms: number) => BigInt(Math.ceil(ms)) * SLOTS;
  if (page.sinceMs !== undefined) conditions.push(sql<SqlBool>`${rowid} >= ${first(page.sinceMs)}`);
  if (page.untilMs !== undefined) conditions.push(sql<SqlBool>`${rowid} < ${first(page.untilMs)}`);
  if (page.after) conditions.push(sql<SqlBool>`${rowid} < ${docIdOf(page.after.id)}`);
  return sql<SearchRow>`select d.kind, cast(d.doc_id as text) as key, d.item_id as id, d.time, d.body
    from search_fts f cross join search_docs d on d.doc_id = f.rowid
    where search_fts match ${fts5Query(filter.terms)} and ${sql.join(conditions, sql` and `)}
    order by ${rowid} desc limit ${limit}`.execute(db);
}

function postgresMatches(
  db: Db,
  filter: SearchFilter,
  page: PageQuery,
  conditions: Expression<SqlBool>[],
  limit: number,
) {
  const time = sql.ref('d.time');
  const id = sql.ref('d.item_id');
  if (page.sinceMs !== undefined) conditions.push(sql<SqlBool>`${time} >= ${page.sinceMs}`);
  if (page.untilMs !== undefined) conditions.push(sql<SqlBool>`${time} < ${page.untilMs}`);
  if (page.after) conditions.push(sql<SqlBool>`(${time}, ${id}) < (${page.after.time}, ${page.after.id})`);
  return sql<SearchRow>`select d.kind, d.item_id as key, d.item_id as id, d.time, d.body from search_docs d
    where d.doc @@ to_tsquery('simple', waypost_unaccent(${tsQuery(filter.terms)}))
    and ${sql.join(conditions, sql` and `)}
    order by ${time} desc, ${id} desc limit ${limit}`.execute(db);
}

/** A SQLite cursor's key is a rowid this server wrote; anything else was made elsewhere. */
function docIdOf(key: string): bigint {
  if (!/^-?[0-9]{1,19}$/.test(key)) throw invalidCursor();
  const value = BigInt(key);
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n)) throw invalidCursor();
  return value;
}
