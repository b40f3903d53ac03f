// Changing and deleting one's own item after the fact (docs/data-ownership.md): the steps every
// kind shares. Who may is src/items/access.ts; what a kind does besides (a post's deliveries, a
// medium's file and the posts that name it) it passes in. The counters and version triggers of
// migration 0006 see these writes like any other, so public pages and ETags follow at once.
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import type { Auth } from '../core/caller.ts';
import { noSuch, ownItem } from './access.ts';
import { deleteItemRow, type ItemTable, type OwnItem } from './items.repo.ts';

export interface ItemChange {
  scope?: ScopeValue | undefined;
  caption?: string | undefined;
}

/** Changes the caller's own post or medium: its scope, a medium's caption. What is left out stays. */
export async function changeOwnItem(db: Db, table: 'posts' | 'media', id: string, change: ItemChange, auth: Auth) {
  await ownItem(db, table, id, auth);
  const set: ItemChange = {};
  if (change.scope !== undefined) set.scope = change.scope;
  if (table === 'media' && change.caption !== undefined) set.caption = change.caption;
  if (Object.keys(set).length === 0) return;
  await db.updateTable(table).set(set).where('user_id', '=', auth.userId).where('id', '=', id).execute();
}

/**
 * Deletes the caller's own item for good, with `inTransaction` run before the row goes in the
 * same transaction. Answers what was deleted; an item deleted meanwhile by another request gets
 * the same 404 as one that never was.
 */
export async function deleteOwnItem(
  db: Db,
  table: ItemTable,
  id: string,
  auth: Auth,
  inTransaction?: (trx: Db) => Promise<void>,
): Promise<OwnItem> {
  const item = await ownItem(db, table, id, auth);
  const deleted = await db.transaction().execute(async (trx) => {
    await inTransaction?.(trx);
    return deleteItemRow(trx, table, auth.userId, id);
  });
  if (!deleted) throw noSuch(table);
  return item;
}
