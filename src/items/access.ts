// Who may see and change an item (docs/api.md "Scopes and who sees what"). The one place that
// says a private item needs `get_private_scope`: the item reads and writes, views, the
// history's tiles and exact places all ask here, and the SQL half of the rule (an item is
// visible to its owner, or when public: `scopeRule` in items.repo.ts) is applied by the repos.
//
//   read by id    public: anyone; private: its owner with get_private_scope (401
//                 insufficient_scope without it); another person's private one: 404, as missing
//   change/delete the owner's only (another person's: 404); a private one also needs
//                 get_private_scope, as reading it does
//   exactly       only the owner with get_private_scope sees places unrounded (docs/privacy.md)
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { insufficientScope, unauthorized, type Auth } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import type { Permission } from '../core/permissions.ts';
import {
  findOwnItem,
  itemExists,
  privateToStrangers,
  selectVisible,
  type ItemRow,
  type ItemTable,
  type OwnItem,
} from './items.repo.ts';

/** The permission that reads private items. */
export const READS_PRIVATE = 'get_private_scope' satisfies Permission;

/** Who reads: a caller's id and permissions, or nobody (no token). */
export interface Reader {
  userId: string;
  permissions: { has(permission: typeof READS_PRIVATE): boolean };
}

const NO_SUCH: Record<ItemTable, string> = {
  posts: 'No such post.',
  media: 'No such medium.',
  locations: 'No such location.',
};

/** Whether the caller reads private items (its own). */
export function readsPrivate(reader: Pick<Reader, 'permissions'> | undefined): boolean {
  return reader?.permissions.has(READS_PRIVATE) ?? false;
}

/** 401 insufficient_scope unless the caller reads private items. */
export function requirePrivateReads(auth: Auth): void {
  if (!readsPrivate(auth)) throw insufficientScope(READS_PRIVATE);
}

/** The scopes of its own objects a caller sees: both with the permission, else the public ones. */
export function readableScopes(auth: Auth): ScopeValue[] {
  return readsPrivate(auth) ? ['public', 'private'] : ['public'];
}

/**
 * Whether `reader` sees the owner's items exactly: only the owner with `get_private_scope`
 * (docs/privacy.md). Anyone else, the owner's token without it included, gets what strangers get.
 */
export function readsExactly(ownerId: string, reader: Reader | undefined): boolean {
  return reader?.userId === ownerId && readsPrivate(reader);
}

/**
 * One item by id for reading: public, anyone; private, no token: 401; private, the owner's token
 * without `get_private_scope`: 401 insufficient_scope; another user's private item, or no item:
 * 404 with one and the same body.
 */
export async function readItem<T extends ItemTable>(
  db: Db,
  table: T,
  id: string,
  auth: Auth | undefined,
): Promise<ItemRow<T>> {
  const row = await selectVisible(db, table, id, { viewer: auth?.userId });
  if (!row) {
    if (!auth && (await itemExists(db, table, id))) throw unauthorized();
    throw noSuch(table);
  }
  if (privateToStrangers(row) && !readsPrivate(auth)) throw insufficientScope(READS_PRIVATE);
  return row;
}

/**
 * One of the caller's own items, to change or delete: another person's item and a missing one
 * are the same 404; a private one needs `get_private_scope` (401 insufficient_scope), so a token
 * that cannot see private items cannot probe or change them either.
 */
export async function ownItem(db: Db, table: ItemTable, id: string, auth: Auth): Promise<OwnItem> {
  const item = await findOwnItem(db, table, auth.userId, id);
  if (!item) throw noSuch(table);
  if (item.scope === 'private' && !readsPrivate(auth)) throw insufficientScope(READS_PRIVATE);
  return item;
}

/** The 404 of an own item that went between the check and the write. */
export function noSuch(table: ItemTable) {
  return notFound(NO_SUCH[table]);
}
