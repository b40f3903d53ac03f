// The `delivery` job: publish one post to one service through its connector, and record the
// outcome on the delivery (and the service's status) when the job closes.
import type { Db } from '../db/database.ts';
import { OutboundBlockedError, type Outbound } from '../lib/ssrf.ts';
import type { Job, JobHandler } from '../jobs/worker.ts';
import { connectors, isServiceType } from './connectors/index.ts';
import { DeliveryError, type PublishResult, type ServiceContext } from './connectors/connector.ts';
import type { DeliveryPayload } from './deliveries.logic.ts';
import { findDeliveryRow, updatePendingDelivery } from './deliveries.repo.ts';
import { outgoingMedia, type MediaFiles } from './outgoing-media.ts';
import { openSecrets, type SecretKey } from './secrets.ts';
import { findServiceRow, setServiceStatus, type ServiceRow } from './services.repo.ts';
import { connectorState } from './services.state.ts';

export interface DeliveryDeps {
  db: Db;
  outbound: Outbound;
  secretsKey: SecretKey;
  now: () => number;
  /** The server's public address: links to a post's page and its media's public copies. */
  baseUrl: string;
  /** The public copies of media, made as for a stranger's read. */
  media: MediaFiles;
}

type Outcome = PublishResult & { serviceId: string | null };

/** The public page of a post (docs/web-public.md): where a shortened text links to. */
export function postPageUrl(baseUrl: string, username: string, postId: string): string {
  return `${baseUrl}/@${encodeURIComponent(username)}/${postId}`;
}

/** What a connector gets to reach a service: its settings, secrets, state and the outbound guard. */
export function serviceContext(
  deps: Pick<DeliveryDeps, 'db' | 'outbound' | 'secretsKey' | 'now'>,
  service: ServiceRow,
): ServiceContext {
  const { db, outbound, secretsKey, now } = deps;
  return {
    serviceId: service.id,
    config: JSON.parse(service.config) as Record<string, string>,
    secrets: openSecrets(secretsKey, service.id, service.secrets),
    state: connectorState(db, secretsKey, service),
    outbound,
    now,
  };
}

/**
 * A target the outbound rules refuse (WAYPOST_OUTBOUND_ALLOW) is refused again on every retry:
 * the delivery fails at once, the refusal its error, and can be tried again once the rules or
 * the service change.
 */
export async function refusalIsFinal<R>(send: () => Promise<R>): Promise<R> {
  try {
    return await send();
  } catch (error) {
    throw error instanceof OutboundBlockedError ? new DeliveryError(error.message, true) : error;
  }
}

export function deliveryHandler({ db, outbound, secretsKey, now, baseUrl, media }: DeliveryDeps): JobHandler<Outcome> {
  return {
    async perform(job: Job): Promise<Outcome> {
      const { delivery_id: deliveryId, post } = job.payload as DeliveryPayload;
      const delivery = await findDeliveryRow(db, deliveryId);
      // Cancelled (its service was deleted) or already settled: nothing to send.
      if (delivery?.status !== 'pending') return { remoteUrl: null, serviceId: null };
      const service = await findServiceRow(db, delivery.user_id, delivery.service_id);
      if (!service) return { remoteUrl: null, serviceId: null };
      if (!isServiceType(service.type)) throw new DeliveryError(`unknown service type ${service.type}`, true);
      // Groups refuse services that cannot publish (trackers); this holds for rows from before.
      const connector = connectors[service.type];
      if (!connector.publish) throw new DeliveryError(`a ${service.type} service publishes nothing`, true);
      const request = {
        post,
        // Read now, not when the post was written: a medium made private or deleted since stays home.
        media: await outgoingMedia(db, media, baseUrl, delivery.user_id, post.media_ids),
        pageUrl: postPageUrl(baseUrl, post.username, post.id),
        ...serviceContext({ db, outbound, secretsKey, now }, service),
        deliveryId,
      };
      const result = await refusalIsFinal(() => connector.publish!(request));
      return { ...result, serviceId: service.id };
    },

    async succeeded(trx, job, { remoteUrl, remoteId, serviceId }, at) {
      if (!serviceId) return;
      const { delivery_id: deliveryId, attempts_before: before = 0 } = job.payload as DeliveryPayload;
      await updatePendingDelivery(trx, deliveryId, {
        status: 'delivered',
        attempts: before + job.attempt,
        remote_url: remoteUrl,
        remote_id: remoteId ?? null,
        last_error: null,
        updated_at: at,
      });
      await setServiceStatus(trx, serviceId, 'ok', null, at);
    },

    async failed(trx, job, error, final, at) {
      const { delivery_id: deliveryId, attempts_before: before = 0 } = job.payload as DeliveryPayload;
      await updatePendingDelivery(trx, deliveryId, {
        status: final ? 'failed' : 'pending',
        attempts: before + job.attempt,
        last_error: error,
        updated_at: at,
      });
      const delivery = await findDeliveryRow(trx, deliveryId);
      if (delivery) await setServiceStatus(trx, delivery.service_id, 'error', error, at);
    },
  };
}
