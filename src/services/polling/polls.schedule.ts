// Starting and stopping the polls of a service (docs/design.md "Bringing posts in"): the first
// poll is queued with the service, each poll queues the next, and deleting the service cancels
// what is queued. `ensurePollJobs` puts back a poll that a crash lost.
import type { Db } from '../../db/database.ts';
import { cancelJobs } from '../../jobs/jobs.repo.ts';
import { connectors, isServiceType } from '../connectors/index.ts';
import type { Poller } from './poller.ts';
import { listServicesOfTypes, POLL_JOB, queuePoll } from './polls.repo.ts';

function pollerOf(type: string, config: Readonly<Record<string, unknown>>): Poller | undefined {
  if (!isServiceType(type)) return undefined;
  const poller = (connectors[type] as { poll?: Poller }).poll;
  return poller?.enabled(config) ? poller : undefined;
}

/** Whether a service of this type and configuration polls (and so has the `import` capability). */
export function polls(type: string, config: Readonly<Record<string, unknown>>): boolean {
  return pollerOf(type, config) !== undefined;
}

/** Queues the first poll of a new service that polls, due at once. */
export async function startPolling(
  db: Db,
  service: { id: string; type: string; config: Record<string, unknown> },
  now: number,
) {
  if (polls(service.type, service.config)) await queuePoll(db, service.id, now, now);
}

export async function stopPolling(db: Db, serviceId: string, now: number): Promise<void> {
  await cancelJobs(db, POLL_JOB, [serviceId], now);
}

/** Queues a poll, due at once, for every polling service that has none queued or running. */
export async function ensurePollJobs(db: Db, now: number): Promise<void> {
  const types = Object.entries(connectors).flatMap(([type, connector]) =>
    (connector as { poll?: Poller }).poll ? [type] : [],
  );
  for (const service of await listServicesOfTypes(db, types)) {
    const config = JSON.parse(service.config) as Record<string, unknown>;
    if (polls(service.type, config)) await queuePoll(db, service.id, now, now);
  }
}
