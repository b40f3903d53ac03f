// `POST /posts/id/<id>/deliveries/<service_id>/retry` (docs/api.md "Deliveries"): a failed or
// cancelled delivery goes back to pending and its job is queued again. The delivery keeps its
// id, so the target sees the same `webhook-id` / `Idempotency-Key` as on the first attempt and
// can drop a repeat.
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../core/errors.ts';
import { enqueueJobs, latestJobFor, restartJob } from '../jobs/jobs.repo.ts';
import { toPost } from '../posts/posts.logic.ts';
import { EXACT_PLACES } from '../privacy/places.ts';
import { findUserById } from '../users/users.repo.ts';
import type { OutgoingPost } from './connectors/connector.ts';
import { deliveryJob, outgoingPost, toDelivery, type DeliveryPayload } from './deliveries.logic.ts';
import { DELIVERY_JOB, findPostDelivery, reopenDelivery } from './deliveries.repo.ts';
import { findServiceRow } from './services.repo.ts';
import type { Delivery } from '../posts/posts.schemas.ts';

export interface RetryOptions {
  baseUrl: string;
  maxAttempts: number;
  now: number;
}

const notRetryable = (status: string) =>
  new AppError(
    'delivery_not_retryable',
    `The delivery is ${status}: only a failed or cancelled delivery can be tried again.`,
  );

/** The post as it is now, as a delivery carries it (a retry whose first job is gone, an edit). */
export async function sentPost(
  db: Db,
  userId: string,
  postId: string,
  baseUrl: string,
): Promise<OutgoingPost | undefined> {
  const row = await db
    .selectFrom('posts')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', postId)
    .executeTakeFirst();
  if (!row) return undefined;
  const owner = await findUserById(db, userId);
  const post = toPost(row, owner?.username ?? '', EXACT_PLACES, new Set(JSON.parse(row.media_ids) as string[]));
  return outgoingPost(post, baseUrl);
}

/**
 * Puts the delivery of the person's post to the service back to pending and queues its job
 * again. 404 when the post is not theirs or missing, or the service has no delivery of it (or
 * is gone); 409 while the delivery is pending or delivered.
 */
export async function retryDelivery(
  db: Db,
  userId: string,
  postId: string,
  serviceId: string,
  options: RetryOptions,
): Promise<Delivery> {
  const { now } = options;
  return db.transaction().execute(async (trx) => {
    const delivery = await findPostDelivery(trx, userId, postId, serviceId);
    if (!delivery) throw notFound('This post has no delivery to that service.');
    if (delivery.status === 'pending' || delivery.status === 'delivered') throw notRetryable(delivery.status);
    const service = await findServiceRow(trx, userId, serviceId);
    if (!service) throw notFound('No such service.');
    // A disabled service gets no new deliveries, and a retry is one.
    if (service.enabled !== 1) {
      throw new AppError('delivery_not_retryable', 'The service is disabled: enable it to try the delivery again.');
    }
    if (!(await reopenDelivery(trx, delivery.id, now))) throw notRetryable('no longer failed');
    const job = await latestJobFor(trx, DELIVERY_JOB, delivery.id);
    const previous = job ? (JSON.parse(job.payload) as DeliveryPayload) : undefined;
    const post = previous?.post ?? (await sentPost(trx, userId, postId, options.baseUrl));
    if (!post) throw notFound('This post has no delivery to that service.');
    const next: DeliveryPayload = { delivery_id: delivery.id, post, attempts_before: delivery.attempts };
    if (job && job.status !== 'queued' && job.status !== 'running') {
      await restartJob(trx, job.id, next, now);
    } else if (!job) await enqueueJobs(trx, [deliveryJob(next, options.maxAttempts)], now);
    return toDelivery({ ...delivery, status: 'pending', updated_at: now });
  });
}
