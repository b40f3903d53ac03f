// SQL for views: the views table, and the filters of a view as WHERE fragments over an item
// table. The items themselves are read through the shared keyset page and scope rule of
// src/items (`selectPage`, `scopeRule`), so a view cannot show what a collection would not.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ViewsTable } from '../db/schema.ts';
import {
  selectKeptPage,
  selectPage,
  type Audience,
  type ItemRow,
  type ItemTable,
  type PageQuery,
} from '../items/items.repo.ts';
import type { PlaceFilter } from '../privacy/served-box.ts';
import { placeFilter } from '../privacy/served-box.repo.ts';

export type ViewRow = ViewsTable;

export function findViewRow(db: Db, id: string): Promise<ViewRow | undefined> {
  return db.selectFrom('views').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listViewRows(db: Db, userId: string, scopes: readonly ViewRow['scope'][]): Promise<ViewRow[]> {
  return db
    .selectFrom('views')
    .selectAll()
    .where('user_id', '=', userId)
    .where('scope', 'in', scopes)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countViewRows(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertViewRow(db: Db, row: ViewRow): Promise<void> {
  await db.insertInto('views').values(row).execute();
}

export async function replaceViewRow(db: Db, row: ViewRow): Promise<void> {
  const { user_id: userId, id, created_at: _created, ...rest } = row;
  await db.updateTable('views').set(rest).where('user_id', '=', userId).where('id', '=', id).execute();
}

export async function deleteViewRow(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('views').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** A view's filters in database units, as stored in `views.filters`. */
export interface StoredFilters {
  sinceMs?: number;
  untilMs?: number;
  bbox?: [number, number, number, number];
  scope?: 'public' | 'private';
  sources?: string[];
  text?: string;
}

/** Text columns a text filter searches, per kind; a kind without one matches no text filter. */
const TEXT_COLUMN: Record<ItemTable, string | undefined> = { posts: 'text', media: 'caption', locations: undefined };

/** LIKE pattern for "contains", with the pattern characters of the needle escaped. */
function containsPattern(needle: string): string {
  return `%${needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The filters as one WHERE fragment over `table`; undefined when the kind can match nothing. */
function filterFor(
  db: Db,
  table: ItemTable,
  filters: StoredFilters,
  owner: string,
  place: PlaceFilter | undefined,
): Expression<SqlBool> | undefined {
  // The view shows its owner's items only, whatever the audience rule would also allow.
  const conditions: Expression<SqlBool>[] = [sql<SqlBool>`${sql.ref('user_id')} = ${owner}`];
  if (place) conditions.push(placeFilter(db, place));
  if (filters.sources) {
    conditions.push(sql<SqlBool>`${sql.ref('source')} in (${sql.join(filters.sources)})`);
  }
  if (filters.text !== undefined) {
    const column = TEXT_COLUMN[table];
    if (column === undefined) return undefined;
    conditions.push(sql<SqlBool>`lower(${sql.ref(column)}) like ${containsPattern(filters.text)} escape '\\'`);
  }
  return sql.join(conditions, sql` and `);
}

export type TaggedRow = { [T in ItemTable]: { kind: T; row: ItemRow<T> } }[ItemTable];

/**
 * One keyset page of a view's items of one kind: the shared page of src/items with the view's
 * filters added. Empty when the filters exclude the kind altogether.
 */
export async function selectViewPage(
  db: Db,
  table: ItemTable,
  audience: Audience,
  page: PageQuery,
  filters: StoredFilters,
  owner: string,
  /** The view's box (src/privacy/served-box.ts `servedPlaceFilter`). */
  place: PlaceFilter | undefined,
): Promise<{ rows: TaggedRow[]; more: boolean }> {
  const filter = filterFor(db, table, filters, owner, place);
  if (!filter) return { rows: [], more: false };
  const result = place
    ? await selectKeptPage(db, table, audience, page, filter, place.keeps)
    : await selectPage(db, table, audience, page, filter);
  return { rows: result.rows.map((row) => ({ kind: table, row }) as TaggedRow), more: result.more };
}
