// Sending a post to the services of the chosen groups. `enqueueDeliveries` runs inside the
// transaction that stores the post (the outbox: docs/design.md "Data model"): the post, one
// `pending` delivery per distinct service, and one job per delivery commit together or not at all.
import type { Db } from '../db/database.ts';
import { type FieldError, invalid } from '../core/errors.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds } from '../lib/time.ts';
import { enqueueJobs, type NewJob } from '../jobs/jobs.repo.ts';
import type { OutgoingPost } from './connectors/connector.ts';
import { DELIVERY_JOB, insertDeliveries, listDeliveryRows, nextTryRows, type DeliveryRow } from './deliveries.repo.ts';
import { groupsWithEnabledServices, ownedGroupIds } from './services.repo.ts';
import type { Delivery, Post } from '../posts/posts.schemas.ts';

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
    edit_status: row.edit_status ?? null,
    edit_error: row.edit_error ?? null,
    updated_at: msToSeconds(row.updated_at),
  };
}

/**
 * What is wrong with `groups` of a POST /posts body: they must be distinct ids of the caller's
 * own groups (docs/api.md "Writing"). An unknown and a foreign group get the same message, so a
 * foreign id reveals nothing.
 */
export async function groupErrors(db: Db, userId: string, groupIds: readonly string[]): Promise<FieldError[]> {
  return errorsOfGroups(groupIds, await ownedGroupIds(db, userId, groupIds));
}

function errorsOfGroups(groupIds: readonly string[], owned: ReadonlySet<string>): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  groupIds.forEach((id, index) => {
    if (seen.has(id)) errors.push({ path: `body/groups/${index}`, message: 'repeats an earlier group' });
    seen.add(id);
  });
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
 * Inside the post's transaction: checks the groups (the one check of a valid post: they are read
 * where they are used, so a group deleted meanwhile cannot slip through), then adds one pending
 * delivery and one job per distinct enabled service across them. Returns the deliveries for the
 * post object; a group that is not the caller's is 400 and the transaction rolls back.
 */
export async function enqueueDeliveries(trx: Db, options: EnqueueOptions): Promise<Delivery[]> {
  const { userId, post, groupIds, maxAttempts, now } = options;
  const { owned, serviceIds } = await groupsWithEnabledServices(trx, userId, groupIds);
  const errors = errorsOfGroups(groupIds, owned);
  if (errors.length > 0) {
    throw invalid('The post is invalid', errors);
  }
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
  await enqueueJobs(
    trx,
    deliveries.map((delivery) => deliveryJob({ delivery_id: delivery.id, post }, maxAttempts)),
    now,
  );
  return deliveries.map(toDelivery);
}

/** The job that sends one delivery, due at once. */
export function deliveryJob(payload: DeliveryPayload, maxAttempts: number): NewJob {
  return { kind: DELIVERY_JOB, ref: payload.delivery_id, payload, maxAttempts };
}

/** The post as a delivery carries it: the API object the owner sees, and its link. */
export function outgoingPost(post: Post, baseUrl: string): OutgoingPost {
  return {
    id: post.id,
    username: post.username,
    text: post.text,
    scope: post.scope,
    time: post.time,
    created_at: post.created_at,
    url: `${baseUrl}/posts/id/${post.id}`,
    media_ids: post.media_ids,
    location: post.location,
  };
}

/** When a pending delivery is tried next: at a time (ms), or now, while a worker tries it. */
export type NextTry = number | 'now';

/** The next try of each of the owner's post's pending deliveries, by service id (the post's page shows them). */
export async function nextTries(db: Db, userId: string, postId: string): Promise<Map<string, NextTry>> {
  const rows = await nextTryRows(db, userId, postId);
  return new Map(rows.map((row) => [row.service_id, row.status === 'running' ? 'now' : row.run_at]));
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
