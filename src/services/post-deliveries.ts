// Deliveries as posts/ asks for them (src/posts/posts.logic.ts `PostDeliveries`): src/app.ts
// hands this to the posts routes, so posts/ never imports services/.
import type { PostDeliveries } from '../posts/posts.logic.ts';
import { deliveriesForPosts, enqueueDeliveries, groupErrors, outgoingPost } from './deliveries.logic.ts';
import { deleteDeliveries } from './deliveries.repo.ts';
import { retryDelivery } from './deliveries.retry.ts';
import { deliverEdit } from './deliveries.edit.ts';

export function postDeliveries(options: { baseUrl: string; maxAttempts: number }): PostDeliveries {
  return {
    groupErrors,
    enqueue: (trx, userId, post, groupIds, now) =>
      enqueueDeliveries(trx, {
        userId,
        post: outgoingPost(post, options.baseUrl),
        groupIds,
        maxAttempts: options.maxAttempts,
        now,
      }),
    of: deliveriesForPosts,
    retry: (db, userId, postId, serviceId, now) =>
      retryDelivery(db, userId, postId, serviceId, { baseUrl: options.baseUrl, maxAttempts: options.maxAttempts, now }),
    forget: (trx, userId, postId) => deleteDeliveries(trx, userId, postId),
    edited: (trx, userId, post, now) =>
      deliverEdit(trx, userId, outgoingPost(post, options.baseUrl), { maxAttempts: options.maxAttempts, now }),
  };
}
