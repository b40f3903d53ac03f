// Merge paging, written once: several keyset pages of one order (one per kind, or per kind and
// scope), each read from the same bound, as one list. A view's items (./views.logic.ts) and the
// web app's timeline (src/web/own-items.ts) both read their collections this way.

/** Where a row sits in keyset order: its time, then its id. */
export interface Key {
  time: number;
  id: string;
}

/** (time, id) order, as the database sorts: ids are ASCII, compared by code unit. */
function compareKeys(order: 'asc' | 'desc') {
  const sign = order === 'asc' ? 1 : -1;
  return (a: Key, b: Key) => sign * (a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The rows of every page in one (time, id) order, and the horizon: of the pages that have more,
 * the last row that comes first. Every row up to the horizon is complete, since what any page
 * left unread comes after its own last row; past the horizon, a row of one page may still have
 * unread rows of another before it.
 */
export function mergePages<T>(
  pages: readonly { rows: readonly T[]; more: boolean }[],
  order: 'asc' | 'desc',
  keyOf: (row: T) => Key,
): { rows: T[]; horizon: Key | undefined } {
  const compare = compareKeys(order);
  const rows = pages.flatMap((page) => page.rows).sort((a, b) => compare(keyOf(a), keyOf(b)));
  const lasts = pages.flatMap((page) => (page.more && page.rows.length > 0 ? [keyOf(page.rows.at(-1)!)] : []));
  const horizon = lasts.sort(compare)[0];
  return { rows, horizon };
}
