// Changing one's own item after the fact (docs/data-ownership.md "Changing an item"): the scope
// of a post or medium, a medium's caption. The same ownership rules as deleting: another
// person's item and a missing one are the same 404; a private item needs `get_private_scope`.
// The counters and version triggers of migration 0006 see the update like any write, so public
// pages and ETags follow at once.
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { insufficientScope, type Auth } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import { findOwnItem } from './deletion.repo.ts';

export interface ItemChange {
  scope?: ScopeValue;
  caption?: string;
}

export async function changeItem(db: Db, table: 'posts' | 'media', id: string, change: ItemChange, auth: Auth) {
  const item = await findOwnItem(db, table, auth.userId, id);
  if (!item) throw notFound(table === 'posts' ? 'No such post.' : 'No such medium.');
  if (item.scope === 'private' && !auth.permissions.has('get_private_scope')) {
    throw insufficientScope('get_private_scope');
  }
  const set: ItemChange = {};
  if (change.scope !== undefined) set.scope = change.scope;
  if (table === 'media' && change.caption !== undefined) set.caption = change.caption;
  if (Object.keys(set).length === 0) return;
  await db.updateTable(table).set(set).where('user_id', '=', auth.userId).where('id', '=', id).execute();
}
