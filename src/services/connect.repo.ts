// All SQL for services being connected through their server's sign-in (migration 0043).
import type { Db } from '../db/database.ts';
import type { ServiceConnectionsTable } from '../db/schema.services.ts';

export type ConnectionRow = ServiceConnectionsTable;

export async function insertConnection(db: Db, row: ConnectionRow): Promise<void> {
  await db.insertInto('service_connections').values(row).execute();
}

/**
 * Takes the person's connection with this state out (once: a second call finds nothing). Another
 * person's is neither found nor removed.
 */
export async function takeConnection(db: Db, userId: string, stateHash: string): Promise<ConnectionRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('service_connections')
      .selectAll()
      .where('user_id', '=', userId)
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const gone = await trx
      .deleteFrom('service_connections')
      .where('user_id', '=', userId)
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    return gone.numDeletedRows > 0n ? row : undefined;
  });
}

/** Housekeeping: connections the person never came back to. */
export async function purgeExpiredConnections(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('service_connections').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
