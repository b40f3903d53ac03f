// posts.jsonl restored, after the media and services its posts name: a post keeps those of its
// media this restore brought back (or the person has), and its deliveries to services the
// person has, through the posts' and deliveries' own inserts. Nothing is sent again.
import { newId } from '../../lib/ids.ts';
import { secondsToMs } from '../../lib/time.ts';
import { insertPosts, type PostRow } from '../../posts/posts.repo.ts';
import { TEXT_MAX } from '../../posts/posts.schemas.ts';
import { insertDeliveries, type DeliveryRow } from '../../services/deliveries.repo.ts';
import { ENTRIES, PostRecord } from '../format.ts';
import { resolveIds } from './restore.ids.ts';
import { checker, isNew, lineBatches, restoredSource, tally, validLines, type Phase } from './restore.phase.ts';
import { ownIds } from './restore.repo.ts';

/** The deliveries of a restored post: to services the person has, a pending one as cancelled. */
function restoredDeliveries(
  post: PostRecord,
  postId: string,
  userId: string,
  serviceIds: ReadonlyMap<string, string>,
  ownServices: ReadonlySet<string>,
): DeliveryRow[] {
  const rows: DeliveryRow[] = [];
  for (const delivery of post.deliveries ?? []) {
    const serviceId = serviceIds.get(delivery.service_id) ?? delivery.service_id;
    if (!ownServices.has(serviceId)) continue;
    // One delivery per post and service: a second one the archive names is passed over.
    if (rows.some((row) => row.service_id === serviceId)) continue;
    // Nothing is sent again: a delivery that was still pending is recorded as cancelled.
    const pending = delivery.status === 'pending';
    const updatedAt = secondsToMs(delivery.updated_at);
    rows.push({
      id: newId(),
      user_id: userId,
      post_id: postId,
      service_id: serviceId,
      status: pending ? 'cancelled' : delivery.status,
      attempts: delivery.attempts,
      remote_url: delivery.remote_url,
      remote_id: delivery.remote_id ?? null,
      last_error: pending ? 'not sent: the post was restored from an export' : delivery.last_error,
      created_at: updatedAt,
      updated_at: updatedAt,
    });
  }
  return rows;
}

export async function restorePosts(
  run: Phase,
  mediaIds: ReadonlyMap<string, string>,
  serviceIds: ReadonlyMap<string, string>,
  batchRecords: number,
): Promise<void> {
  const check = checker(PostRecord);
  for await (const lines of lineBatches(run, ENTRIES.posts, batchRecords)) {
    await run.commit(async (trx) => {
      const valid = validLines(run, lines, {
        name: ENTRIES.posts,
        kind: 'posts',
        check,
        refuse: (post) => ([...post.text].length > TEXT_MAX ? `/text is over ${TEXT_MAX} characters` : undefined),
      });
      const resolved = await resolveIds(
        trx,
        'posts',
        run.userId,
        valid.map((v) => v.value.id),
      );
      const named = valid.flatMap((v) => v.value.media_ids.map((id) => mediaIds.get(id) ?? id));
      const ownMedia = await ownIds(trx, 'media', run.userId, [...new Set(named)]);
      const namedServices = valid.flatMap((v) =>
        (v.value.deliveries ?? []).map((d) => serviceIds.get(d.service_id) ?? d.service_id),
      );
      const ownServices = await ownIds(trx, 'services', run.userId, [...new Set(namedServices)]);
      const rows: PostRow[] = [];
      const deliveries: DeliveryRow[] = [];
      for (const [n, { counting, where, value: post }] of valid.entries()) {
        const target = resolved[n];
        if (!isNew(run, 'posts', target, { counting, where })) continue;
        const media = post.media_ids.map((id) => mediaIds.get(id) ?? id).filter((id) => ownMedia.has(id));
        if (counting && media.length < post.media_ids.length) {
          run.problem(where, `${post.media_ids.length - media.length} of its media were not restored; left out`);
        }
        rows.push({
          user_id: run.userId,
          id: target.id,
          scope: post.scope,
          time: secondsToMs(post.time),
          created_at: secondsToMs(post.created_at),
          text: post.text,
          media_ids: JSON.stringify(media),
          lat: post.location?.lat ?? null,
          lon: post.location?.lon ?? null,
          source: restoredSource(serviceIds, post.source),
        });
        deliveries.push(...restoredDeliveries(post, target.id, run.userId, serviceIds, ownServices));
        if (counting) tally(run, 'posts', 'stored');
      }
      await insertPosts(trx, rows);
      await insertDeliveries(trx, deliveries);
    });
  }
}
