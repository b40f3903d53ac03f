// A post's text changed after it was written (docs/api.md "Deliveries"). A delivery not yet
// made sends the new text: its job's copy of the post is replaced. A delivery made goes on to
// the service as an edit when its connector takes edits (`update`: Mastodon, Micropub), by the
// `delivery_edit` job; otherwise it says `unsupported` (Bluesky, webhooks). The job reads the
// post when it runs, so of several edits in a row the latest arrives, whatever order jobs run in.
import type { Db } from '../db/database.ts';
import { enqueueJobs, latestJobFor, setJobPayload } from '../jobs/jobs.repo.ts';
import type { Job, JobHandler } from '../jobs/worker.ts';
import { connectors, isServiceType } from './connectors/index.ts';
import { DeliveryError, type OutgoingPost } from './connectors/connector.ts';
import { postPageUrl, refusalIsFinal, serviceContext, type DeliveryDeps } from './deliveries.job.ts';
import type { DeliveryPayload } from './deliveries.logic.ts';
import { DELIVERY_JOB, findDeliveryRow } from './deliveries.repo.ts';
import { sentPost } from './deliveries.retry.ts';
import { findServiceRow } from './services.repo.ts';
import type { EditStatus } from '../db/schema.services.ts';

export const EDIT_JOB = 'delivery_edit';

interface EditPayload {
  delivery_id: string;
}

const takesEdits = (type: string) => isServiceType(type) && connectors[type].update !== undefined;

/** Inside the edit's transaction: every delivery of the post learns of the new text. */
export async function deliverEdit(
  trx: Db,
  userId: string,
  post: OutgoingPost,
  options: { maxAttempts: number; now: number },
): Promise<void> {
  const { now } = options;
  const rows = await trx
    .selectFrom('deliveries as d')
    .innerJoin('services as s', 's.id', 'd.service_id')
    .select(['d.id', 'd.status', 's.type'])
    .where('d.user_id', '=', userId)
    .where('d.post_id', '=', post.id)
    .execute();
  const jobs = [];
  for (const row of rows) {
    if (row.status !== 'delivered') {
      const job = await latestJobFor(trx, DELIVERY_JOB, row.id);
      if (job) await setJobPayload(trx, job.id, { ...(JSON.parse(job.payload) as DeliveryPayload), post }, now);
      continue;
    }
    const status: EditStatus = takesEdits(row.type) ? 'pending' : 'unsupported';
    await setEdit(trx, row.id, status, null, now);
    if (status === 'pending') {
      jobs.push({ kind: EDIT_JOB, ref: row.id, payload: { delivery_id: row.id }, maxAttempts: options.maxAttempts });
    }
  }
  await enqueueJobs(trx, jobs, now);
}

async function setEdit(db: Db, id: string, status: EditStatus, error: string | null, now: number) {
  await db
    .updateTable('deliveries')
    .set({ edit_status: status, edit_error: error, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** The `delivery_edit` job: the post as it is now, to the service, through its connector. */
export function editHandler({ db, outbound, secretsKey, now, baseUrl }: DeliveryDeps): JobHandler<boolean> {
  return {
    async perform(job: Job): Promise<boolean> {
      const { delivery_id: deliveryId } = job.payload as EditPayload;
      const delivery = await findDeliveryRow(db, deliveryId);
      if (delivery?.status !== 'delivered' || delivery.edit_status !== 'pending') return false;
      const service = await findServiceRow(db, delivery.user_id, delivery.service_id);
      const post = await sentPost(db, delivery.user_id, delivery.post_id, baseUrl);
      if (!service || !post) return false;
      const connector = isServiceType(service.type) ? connectors[service.type] : undefined;
      if (!connector?.update) throw new DeliveryError(`a ${service.type} service takes no edits`, true);
      const update = connector.update.bind(connector);
      await refusalIsFinal(() =>
        update({
          post,
          pageUrl: postPageUrl(baseUrl, post.username, post.id),
          ...serviceContext({ db, outbound, secretsKey, now }, service),
          deliveryId,
          remoteId: delivery.remote_id ?? null,
          remoteUrl: delivery.remote_url,
        }),
      );
      return true;
    },
    async succeeded(trx, job, sent, at) {
      if (sent) await setEdit(trx, (job.payload as EditPayload).delivery_id, 'delivered', null, at);
    },
    async failed(trx, job, error, final, at) {
      await setEdit(trx, (job.payload as EditPayload).delivery_id, final ? 'failed' : 'pending', error, at);
    },
  };
}
