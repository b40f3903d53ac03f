// "Which of these ids are mine": one lookup for every per-user table with an `id` (media a post
// names, services and groups a post or a group names). Unknown ids and other people's are
// simply left out, so the caller answers them exactly like missing ones.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

type OwnedTable = 'media' | 'services' | 'service_groups';

/** The user's ids among `ids`, each with the value of `column`. */
export async function selectOwned<V>(
  db: Db,
  table: OwnedTable,
  column: string,
  userId: string,
  ids: readonly string[],
): Promise<Map<string, V>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ id: string; value: V }>`select ${sql.ref('id')} as id, ${sql.ref(column)} as value
    from ${sql.table(table)} where ${sql.ref('user_id')} = ${userId}
    and ${sql.ref('id')} in (${sql.join([...new Set(ids)])})`.execute(db);
  return new Map(rows.map((row) => [row.id, row.value]));
}
