// SQL the three kinds of item share: the scope rule and the keyset page. Every listing and
// every lookup by id goes through `scopeRule` (docs/conventions.md 7), so no query can forget it.
import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import { runFixed, slot } from '../db/fixed.ts';
import type { ItemColumns, ScopeValue, Tables } from '../db/schema.ts';

export type ItemTable = 'posts' | 'media' | 'locations';
export type ItemRow<T extends ItemTable> = Selectable<Tables[T]> & ItemColumns;

/**
 * Whose items, of which scope, a query may return:
 * - a collection: one user's items of one scope;
 * - objects by id: every public item, and the viewer's own items of either scope.
 */
export type Audience = { owner: string; scope: ScopeValue } | { viewer: string | undefined };

/**
 * What anyone may see of a table: its public items, less the points a privacy zone hides
 * (migration 0019, docs/privacy.md "Privacy zones"), which strangers see as private ones.
 */
function shownToAnyone(table: ItemTable): Expression<SqlBool> {
  const scope = sql.ref('scope');
  if (table === 'locations') return sql<SqlBool>`(${scope} = 'public' and ${sql.ref('hidden')} = 0)`;
  return sql<SqlBool>`${scope} = 'public'`;
}

/** The one scope rule, as a WHERE fragment over an item table. */
export function scopeRule(audience: Audience, table: ItemTable): Expression<SqlBool> {
  const userId = sql.ref('user_id');
  const shown = shownToAnyone(table);
  if ('owner' in audience) {
    if (audience.scope === 'public') return sql<SqlBool>`(${userId} = ${audience.owner} and ${shown})`;
    // A literal, as the public rule's: the scope decides the statement's shape (src/db/fixed.ts).
    return sql<SqlBool>`(${userId} = ${audience.owner} and ${sql.ref('scope')} = 'private')`;
  }
  if (audience.viewer === undefined) return shown;
  return sql<SqlBool>`(${shown} or ${userId} = ${audience.viewer})`;
}

/** Whether strangers see this row as private: private, or a point a privacy zone hides. */
export function privateToStrangers(row: { scope: ScopeValue; hidden?: number }): boolean {
  return row.scope === 'private' || row.hidden === 1;
}

/** A page request in database units (milliseconds). */
export interface PageQuery {
  count: number;
  order: 'asc' | 'desc';
  sinceMs?: number | undefined;
  untilMs?: number | undefined;
  /** The (time, id) key of the last item of the previous page. */
  after?: { time: number; id: string } | undefined;
}

/**
 * One page of a collection, keyset-paged on (time, id) (never OFFSET): with the index
 * (user_id, scope, time, id) the database seeks to the key and reads `count + 1` rows, however
 * deep the page is. The extra row tells whether a next page exists. Without a `filter`, the
 * statement is compiled once per shape (src/db/fixed.ts).
 */
export async function selectPage<T extends ItemTable>(
  db: Db,
  table: T,
  audience: Audience,
  page: PageQuery,
  filter?: Expression<SqlBool>,
): Promise<{ rows: ItemRow<T>[]; more: boolean }> {
  return readPage<ItemRow<T>>(db, table, audience, page, filter, undefined);
}

/**
 * `selectPage` reading only `columns`, for a reader that makes its objects from those: the
 * driver makes a value of every column a row holds, and on a page of points the owner's id,
 * the import and the zone flag were a fifth of them (docs/design.md "Fixed statements").
 */
export async function selectPageOf<T extends ItemTable, C extends keyof ItemRow<T> & string>(
  db: Db,
  table: T,
  audience: Audience,
  page: PageQuery,
  columns: readonly C[],
  filter?: Expression<SqlBool>,
): Promise<{ rows: Pick<ItemRow<T>, C>[]; more: boolean }> {
  return readPage<Pick<ItemRow<T>, C>>(db, table, audience, page, filter, columns);
}

async function readPage<R>(
  db: Db,
  table: ItemTable,
  audience: Audience,
  page: PageQuery,
  filter: Expression<SqlBool> | undefined,
  columns: readonly string[] | undefined,
): Promise<{ rows: R[]; more: boolean }> {
  const limit = page.count + 1;
  const rows = filter
    ? (await pageStatement<R>(table, columns, audience, page, limit, filter).execute(db)).rows
    : await runFixed(
        db,
        pageShape(table, columns, audience, page),
        () => pageStatement<R>(table, columns, ...pageSlots(audience, page)).compile(db),
        [
          'owner' in audience ? audience.owner : audience.viewer,
          page.sinceMs,
          page.untilMs,
          page.after?.time,
          page.after?.id,
          limit,
        ],
      );
  return { rows: rows.slice(0, page.count), more: rows.length > page.count };
}

/** What decides a page statement's SQL text: everything but the values. */
function pageShape(
  table: ItemTable,
  columns: readonly string[] | undefined,
  audience: Audience,
  page: PageQuery,
): string {
  const who = 'owner' in audience ? `owner ${audience.scope}` : audience.viewer === undefined ? 'anyone' : 'viewer';
  const bounds = [page.sinceMs, page.untilMs, page.after].map((bound) => (bound === undefined ? '-' : '+')).join('');
  return `page ${table} ${columns?.join(',') ?? '*'} ${who} ${page.order} ${bounds}`;
}

/** The audience, the page and the limit of `pageShape`'s statement, with slots for the values of selectPage's call. */
function pageSlots(audience: Audience, page: PageQuery): [Audience, PageBounds, number] {
  const who: Audience =
    'owner' in audience
      ? { owner: slot(0), scope: audience.scope }
      : { viewer: audience.viewer === undefined ? undefined : slot(0) };
  const bounds: PageBounds = {
    order: page.order,
    sinceMs: page.sinceMs === undefined ? undefined : slot(1),
    untilMs: page.untilMs === undefined ? undefined : slot(2),
    after: page.after === undefined ? undefined : { time: slot(3), id: slot(4) },
  };
  return [who, bounds, slot(5)];
}

/** What a page statement reads besides its limit. */
type PageBounds = Omit<PageQuery, 'count'>;

function pageStatement<R>(
  table: ItemTable,
  columns: readonly string[] | undefined,
  audience: Audience,
  page: PageBounds,
  limit: number,
  filter?: Expression<SqlBool>,
) {
  const time = sql.ref('time');
  const id = sql.ref('id');
  const direction = page.order === 'desc' ? sql.raw('desc') : sql.raw('asc');
  const conditions: Expression<SqlBool>[] = [scopeRule(audience, table)];
  if (page.sinceMs !== undefined) conditions.push(sql<SqlBool>`${time} >= ${page.sinceMs}`);
  if (page.untilMs !== undefined) conditions.push(sql<SqlBool>`${time} < ${page.untilMs}`);
  if (page.after) {
    // A row-value comparison both databases turn into one index range seek.
    const op = sql.raw(page.order === 'desc' ? '<' : '>');
    conditions.push(sql<SqlBool>`(${time}, ${id}) ${op} (${page.after.time}, ${page.after.id})`);
  }
  if (filter) conditions.push(filter);
  const where = sql.join(conditions, sql` and `);
  const selected = columns ? sql.join(columns.map((column) => sql.ref(column))) : sql.raw('*');
  return sql<R>`select ${selected} from ${sql.table(table)} where ${where}
    order by ${time} ${direction}, ${id} ${direction} limit ${limit}`;
}

/** Rows the database reads per round of `selectKeptPage`, at most. */
const KEPT_BATCH_MAX = 1000;

/**
 * The keyset page of the rows that pass `filter` (in SQL) and then `keeps` (here): `count` of
 * them, and whether another one follows. The database reads on from where the last round ended
 * until it has found `count + 1` rows to keep or has none left, so which rows a page holds,
 * `more` and the last key depend only on the rows kept, never on the ones `keeps` dropped.
 * For a filter SQL cannot say as the application does (public places, rounded:
 * src/privacy/served-box.ts), with a SQL filter that holds every row to keep and few others.
 */
export async function selectKeptPage<T extends ItemTable>(
  db: Db,
  table: T,
  audience: Audience,
  page: PageQuery,
  filter: Expression<SqlBool>,
  keeps: (row: ItemRow<T>) => boolean,
): Promise<{ rows: ItemRow<T>[]; more: boolean }> {
  const kept: ItemRow<T>[] = [];
  let after = page.after;
  let batch = Math.min(page.count + 1, KEPT_BATCH_MAX);
  for (;;) {
    const result = await selectPage(db, table, audience, { ...page, count: batch, after }, filter);
    for (const row of result.rows) {
      if (!keeps(row)) continue;
      if (kept.length === page.count) return { rows: kept, more: true };
      kept.push(row);
    }
    const last = result.rows.at(-1);
    if (!result.more || !last) return { rows: kept, more: false };
    after = { time: last.time, id: last.id };
    batch = Math.min(batch * 2, KEPT_BATCH_MAX);
  }
}

/** One item by id, if the audience may see it. */
export async function selectVisible<T extends ItemTable>(
  db: Db,
  table: T,
  id: string,
  audience: Audience,
): Promise<ItemRow<T> | undefined> {
  const { rows } = await sql<ItemRow<T>>`select * from ${sql.table(table)}
    where ${sql.ref('id')} = ${id} and ${scopeRule(audience, table)}`.execute(db);
  return rows[0];
}

/** Whether an item exists at all: only to tell "log in" (401) from "no such thing" (404). */
export async function itemExists(db: Db, table: ItemTable, id: string): Promise<boolean> {
  const { rows } = await sql`select 1 as one from ${sql.table(table)} where ${sql.ref('id')} = ${id}`.execute(db);
  return rows.length > 0;
}

/** The scope (and a medium's content hash) of an item, when it is `userId`'s: the "is this mine" of a change or delete. */
export interface OwnItem {
  scope: ScopeValue;
  sha256?: string;
}

export async function findOwnItem(db: Db, table: ItemTable, userId: string, id: string): Promise<OwnItem | undefined> {
  const { rows } = await sql<OwnItem>`select ${sql.raw(table === 'media' ? 'scope, sha256' : 'scope')}
    from ${sql.table(table)} where ${sql.ref('user_id')} = ${userId} and ${sql.ref('id')} = ${id}`.execute(db);
  return rows[0];
}

export async function deleteItemRow(db: Db, table: ItemTable, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom(table).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
