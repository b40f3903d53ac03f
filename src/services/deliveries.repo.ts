// All SQL for deliveries: one row per (post, service), the state a post's owner sees.
import type { Db } from '../db/database.ts';
import type { DeliveriesTable } from '../db/schema.ts';

export type DeliveryRow = DeliveriesTable;

export async function insertDeliveries(db: Db, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('deliveries').values(rows).execute();
}

export function findDeliveryRow(db: Db, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listDeliveryRows(db: Db, userId: string, postIds: readonly string[]): Promise<DeliveryRow[]> {
  if (postIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('user_id', '=', userId)
    .where('post_id', 'in', [...postIds])
    .orderBy('post_id')
    .orderBy('service_id')
    .execute();
}

/** Records an attempt's outcome on a delivery that is still pending (a cancelled one stays so). */
export async function updatePendingDelivery(
  db: Db,
  id: string,
  change: Pick<DeliveryRow, 'status' | 'attempts' | 'updated_at'> &
    Partial<Pick<DeliveryRow, 'remote_url' | 'remote_id' | 'last_error'>>,
): Promise<void> {
  await db.updateTable('deliveries').set(change).where('id', '=', id).where('status', '=', 'pending').execute();
}

/** Cancels the service's pending deliveries and returns their ids. */
export async function cancelPendingDeliveries(
  db: Db,
  userId: string,
  serviceId: string,
  now: number,
): Promise<string[]> {
  const rows = await db
    .updateTable('deliveries')
    .set({ status: 'cancelled', updated_at: now })
    .where('user_id', '=', userId)
    .where('service_id', '=', serviceId)
    .where('status', '=', 'pending')
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
