// All SQL for deliveries: one row per (post, service), the state a post's owner sees.
import type { Db } from '../db/database.ts';
import { runFixed, slot } from '../db/fixed.ts';
import { deleteJobs } from '../jobs/jobs.repo.ts';
import type { DeliveriesTable } from '../db/schema.services.ts';

export type DeliveryRow = DeliveriesTable;

/** The job kind that sends one delivery. */
export const DELIVERY_JOB = 'delivery';

export async function insertDeliveries(db: Db, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('deliveries').values(rows).execute();
}

/**
 * The next try of each of a post's pending deliveries, by service: the time its queued job is
 * due, or `now` while a worker runs it. A pending delivery whose job is gone (no worker holds it
 * and none is queued) has none.
 */
export function nextTryRows(db: Db, userId: string, postId: string) {
  return db
    .selectFrom('deliveries as d')
    .innerJoin('jobs as j', (join) => join.onRef('j.ref', '=', 'd.id').on('j.kind', '=', DELIVERY_JOB))
    .select(['d.service_id', 'j.run_at', 'j.status'])
    .where('d.user_id', '=', userId)
    .where('d.post_id', '=', postId)
    .where('d.status', '=', 'pending')
    .where('j.status', 'in', ['queued', 'running'])
    .execute();
}

export function findDeliveryRow(db: Db, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The deliveries of `postIds`, by post, then service. Sorted here, not by `order by`: with it,
 * SQLite ran this statement of a page of posts at 2.5 times the cost on the same plan (90
 * against 35 µs for 50 posts, BENCHMARKS.md "The cost of a private page"); the rows, a few a
 * post, sort in no time.
 */
export async function listDeliveryRows(db: Db, userId: string, postIds: readonly string[]): Promise<DeliveryRow[]> {
  if (postIds.length === 0) return [];
  // Every page of posts reads them: compiled once per number of posts (src/db/fixed.ts).
  const build = () =>
    db
      .selectFrom('deliveries')
      .selectAll()
      .where('user_id', '=', slot<string>(0))
      .where(
        'post_id',
        'in',
        postIds.map((_, i) => slot<string>(i + 1)),
      )
      .compile();
  const rows = await runFixed(db, `deliveries of ${postIds.length} posts`, build, [userId, ...postIds]);
  return rows.sort((a, b) => compare(a.post_id, b.post_id) || compare(a.service_id, b.service_id));
}

/** The order of SQL's `order by` on ids (byte order; ids are ASCII). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

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

/** The delivery of a post of the person to a service, if there is one. */
export function findPostDelivery(
  db: Db,
  userId: string,
  postId: string,
  serviceId: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('deliveries')
    .selectAll()
    .where('user_id', '=', userId)
    .where('post_id', '=', postId)
    .where('service_id', '=', serviceId)
    .executeTakeFirst();
}

/** Puts a failed or cancelled delivery back to pending; false when it is in another state now. */
export async function reopenDelivery(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'pending', updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['failed', 'cancelled'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whether any of the person's deliveries put a post at one of these URLs (the echo rule). */
export async function deliveredTo(db: Db, userId: string, urls: readonly string[]): Promise<Set<string>> {
  if (urls.length === 0) return new Set();
  const rows = await db
    .selectFrom('deliveries')
    .select('remote_url')
    .where('user_id', '=', userId)
    .where('remote_url', 'in', [...urls])
    .execute();
  return new Set(rows.flatMap((row) => (row.remote_url === null ? [] : [row.remote_url])));
}

/**
 * The text of the person's posts whose delivery to the service has no remote URL to match an
 * echo by (pending, or delivered without one), newest first, at most `limit`.
 */
export async function unmatchedDeliveryTexts(
  db: Db,
  userId: string,
  serviceId: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('posts as p', 'p.id', 'd.post_id')
    .select('p.text')
    .where('d.user_id', '=', userId)
    .where('d.service_id', '=', serviceId)
    .where((w) =>
      w.or([w('d.status', '=', 'pending'), w.and([w('d.status', '=', 'delivered'), w('d.remote_url', 'is', null)])]),
    )
    .orderBy('d.created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.text);
}

/**
 * Deletes delivery records that ended without delivering (failed, cancelled) before `before`
 * (docs/housekeeping.md). Delivered ones stay with their post: they say where it was published.
 */
export async function purgeEndedDeliveries(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('deliveries')
    .where('status', 'in', ['failed', 'cancelled'])
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A person's deliveries and their queued jobs (a job's payload carries the post's text): one
 * post's, or with no `postId` all of them (the account is going).
 */
export async function deleteDeliveries(db: Db, userId: string, postId?: string): Promise<void> {
  let deliveries = db.selectFrom('deliveries').select('id').where('user_id', '=', userId);
  if (postId !== undefined) deliveries = deliveries.where('post_id', '=', postId);
  await deleteJobs(db, DELIVERY_JOB, deliveries);
  let rows = db.deleteFrom('deliveries').where('user_id', '=', userId);
  if (postId !== undefined) rows = rows.where('post_id', '=', postId);
  await rows.execute();
}
