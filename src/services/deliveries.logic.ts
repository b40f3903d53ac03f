// Sending a post to the services of the chosen groups. `enqueueDeliveries` runs inside the
// transaction that stores the post (the outbox: docs/design.md "Data model"): the post, one
// `pending` delivery per distinct service, and one job per delivery commit together or not at all.
import type { Db } from '../db/database.ts';
import { type FieldError, invalid } from '../http/errors.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds } from '../lib/time.ts';
import { insertJobs } from '../jobs/jobs.repo.ts';
import type { OutgoingPost } from './connectors/connector.ts';
import { insertDeliveries, listDeliveryRows, type DeliveryRow } from './deliveries.repo.ts';
import { enabledServicesInGroups, ownedGroupIds } from './services.repo.ts';

export const DELIVERY_JOB = 'delivery';

export interface Delivery {
  service_id: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  remote_url: string | null;
  remote_id: string | null;
  last_error: string | null;
  updated_at: number;
}

/** What a delivery job carries: the delivery and the post as it was written. */
export interface DeliveryPayload {
  delivery_id: string;
  post: OutgoingPost;
  /** Attempts made before a retry asked for (`POST .../retry`), so `attempts` keeps counting. */
  attempts_before?: number;
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    service_id: row.service_id,
    status: row.status,
    attempts: row.attempts,
    remote_url: row.remote_url,
    remote_id: row.remote_id ?? null,
    last_error: row.last_error,
    updated_at: msToSeconds(row.updated_at),
  };
}

/**
 * What is wrong with `groups` of a POST /posts body: they must be distinct ids of the caller's
 * own groups (docs/api.md "Writing"). An unknown and a foreign group get the same message, so a
 * foreign id reveals nothing.
 */
export async function groupErrors(db: Db, userId: string, groupIds: readonly string[]): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  groupIds.forEach((id, index) => {
    if (seen.has(id)) errors.push({ path: `body/groups/${index}`, message: 'repeats an earlier group' });
    seen.add(id);
  });
  const owned = await ownedGroupIds(db, userId, [...seen]);
  groupIds.forEach((id, index) => {
    if (!owned.has(id)) errors.push({ path: `body/groups/${index}`, message: 'unknown group' });
  });
  return errors;
}

export interface EnqueueOptions {
  userId: string;
  post: OutgoingPost;
  groupIds: readonly string[];
  /** Attempts per delivery (configuration). */
  maxAttempts: number;
  now: number;
}

/**
 * Inside the post's transaction: checks the groups (again: they may have changed since the
 * request was validated), then adds one pending delivery and one job
 * per distinct enabled service across them. Returns the deliveries for the post object.
 */
export async function enqueueDeliveries(trx: Db, options: EnqueueOptions): Promise<Delivery[]> {
  const { userId, post, groupIds, maxAttempts, now } = options;
  const errors = await groupErrors(trx, userId, groupIds);
  if (errors.length > 0) {
    throw invalid('The request is invalid', errors);
  }
  const serviceIds = await enabledServicesInGroups(trx, userId, groupIds);
  const deliveries: DeliveryRow[] = serviceIds.map((serviceId) => ({
    id: newId(),
    user_id: userId,
    post_id: post.id,
    service_id: serviceId,
    status: 'pending',
    attempts: 0,
    remote_url: null,
    remote_id: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  }));
  await insertDeliveries(trx, deliveries);
  await insertJobs(
    trx,
    deliveries.map((delivery) => ({
      id: newId(),
      kind: DELIVERY_JOB,
      ref: delivery.id,
      payload: JSON.stringify({ delivery_id: delivery.id, post } satisfies DeliveryPayload),
      status: 'queued',
      attempts: 0,
      max_attempts: maxAttempts,
      run_at: now,
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })),
  );
  return deliveries.map(toDelivery);
}

/** The deliveries of each post, for the owner's view of the post object. */
export async function deliveriesForPosts(
  db: Db,
  userId: string,
  postIds: readonly string[],
): Promise<Map<string, Delivery[]>> {
  const byPost = new Map<string, Delivery[]>(postIds.map((id) => [id, []]));
  for (const row of await listDeliveryRows(db, userId, postIds)) byPost.get(row.post_id)?.push(toDelivery(row));
  return byPost;
}
