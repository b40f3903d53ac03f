// The search query on each engine (docs/api.md "Search"): the rows of `search_docs` (migration
// 0034) whose text matches, one person's, of the scopes and kinds asked for, newest first and
// keyset-paged on (time, item_id) like every collection (src/items/items.repo.ts).
import { SqliteAdapter, sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ScopeValue, SearchDocsTable } from '../db/schema.ts';
import type { PageQuery } from '../items/items.repo.ts';
import { fts5Query, tsQuery, type Term } from './search.query.ts';
import type { SearchKind } from './search.schemas.ts';

export type SearchRow = Pick<SearchDocsTable, 'kind' | 'time' | 'body'> & { id: string };

export interface SearchFilter {
  userId: string;
  scopes: readonly ScopeValue[];
  kinds: readonly SearchKind[];
  terms: readonly Term[];
}

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function selectMatches(
  db: Db,
  filter: SearchFilter,
  page: PageQuery,
): Promise<{ rows: SearchRow[]; more: boolean }> {
  const time = sql.ref('d.time');
  const id = sql.ref('d.item_id');
  const conditions: Expression<SqlBool>[] = [
    sql<SqlBool>`${sql.ref('d.user_id')} = ${filter.userId}`,
    sql<SqlBool>`${sql.ref('d.scope')} in (${sql.join([...filter.scopes])})`,
    sql<SqlBool>`${sql.ref('d.kind')} in (${sql.join([...filter.kinds])})`,
  ];
  if (page.sinceMs !== undefined) conditions.push(sql<SqlBool>`${time} >= ${page.sinceMs}`);
  if (page.untilMs !== undefined) conditions.push(sql<SqlBool>`${time} < ${page.untilMs}`);
  if (page.after) conditions.push(sql<SqlBool>`(${time}, ${id}) < (${page.after.time}, ${page.after.id})`);
  const limit = page.count + 1;
  const { rows } = isSqlite(db)
    ? await sql<SearchRow>`select d.kind, d.item_id as id, d.time, d.body from search_fts f
        join search_docs d on d.doc_id = f.rowid
        where search_fts match ${fts5Query(filter.terms)} and ${sql.join(conditions, sql` and `)}
        order by ${time} desc, ${id} desc limit ${limit}`.execute(db)
    : await sql<SearchRow>`select d.kind, d.item_id as id, d.time, d.body from search_docs d
        where d.doc @@ to_tsquery('simple', waypost_unaccent(${tsQuery(filter.terms)}))
        and ${sql.join(conditions, sql` and `)}
        order by ${time} desc, ${id} desc limit ${limit}`.execute(db);
  return { rows: rows.slice(0, page.count), more: rows.length > page.count };
}
