// The ids of restored objects (docs/imports.md "Restoring an export"): an object keeps its id
// when no one holds it on this server; when the person holds it already it is the same object,
// restored before; when another account holds it, the object gets an id derived from the
// account and the old id, so a second restore of the same archive finds it again.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { idHolders, type RestoredTable } from './restore.repo.ts';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The `n`th id an object gets when another account holds its own: the same for the same account and id. */
export function derivedId(userId: string, table: RestoredTable, id: string, n: number): string {
  const hash = createHash('sha256').update(`${userId}\n${table}\n${id}\n${n}`).digest();
  let tail = '';
  for (let i = 0; i < 16; i += 1) tail += CROCKFORD[hash[i]! & 31];
  // The time part of a ULID is kept, so the new id sorts where the old one did.
  return (ULID.test(id) ? id.slice(0, 10) : '0000000000') + tail;
}

const DERIVED_TRIES = 3;

export type Resolved = { id: string; existing: boolean } | null;

/**
 * The id each object gets: its own, or a derived one when another account holds it; `existing`
 * when the person holds it already (restored before, or twice in this batch). Null when every
 * candidate is taken by others.
 */
export async function resolveIds(
  db: Db,
  table: RestoredTable,
  userId: string,
  ids: readonly string[],
): Promise<Resolved[]> {
  const holders = await idHolders(db, table, [...new Set(ids)]);
  const taken = ids.filter((id) => holders.has(id) && holders.get(id) !== userId);
  const derived = taken.flatMap((id) =>
    Array.from({ length: DERIVED_TRIES }, (_, n) => derivedId(userId, table, id, n)),
  );
  for (const [id, holder] of await idHolders(db, table, [...new Set(derived)])) holders.set(id, holder);
  const claimed = new Set<string>();
  return ids.map((id) => {
    const own = holders.get(id);
    const candidates =
      own !== undefined && own !== userId
        ? Array.from({ length: DERIVED_TRIES }, (_, n) => derivedId(userId, table, id, n))
        : [id];
    for (const candidate of candidates) {
      const holder = holders.get(candidate);
      if (holder === userId || claimed.has(candidate)) return { id: candidate, existing: true };
      if (holder === undefined) {
        claimed.add(candidate);
        return { id: candidate, existing: false };
      }
    }
    return null;
  });
}
