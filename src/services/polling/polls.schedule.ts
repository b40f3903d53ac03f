// Starting and stopping the polls of a service (docs/design.md "Bringing posts in"): the first
// poll is queued with the service, each poll queues the next, and deleting the service cancels
// what is queued. `ensurePollJobs` puts back a poll that a crash lost.
import type { Db } from '../../db/database.ts';
import { cancelJobs } from '../../jobs/jobs.repo.ts';
import { connectors, isServiceType } from '../connectors/index.ts';
import type { Poller } from './poller.ts';
import { IMPORT_SETTINGS } from '../connectors/import.config.ts';
import { deletePollRow, listServicesOfTypes, POLL_JOB, queuePoll } from './polls.repo.ts';

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

/**
 * After a service's settings changed (`changed`: the config fields given a new value, secrets
 * included; `enabled`: it was switched on). A service that polls now is polled at once: the
 * poll queued on the old schedule is replaced (one running is cancelled, and its worker, having
 * lost the job, stores nothing). One that no longer polls has its poll cancelled. A new source
 * (any field but how and how often) starts afresh: validators and cursor are dropped and its
 * next poll brings in a bounded backlog, as a new service's first does; entries seen before
 * stay seen.
 */
export async function reschedulePolling(
  db: Db,
  service: {
    id: string;
    userId: string;
    type: string;
    before: Record<string, unknown>;
    after: Record<string, unknown>;
  },
  change: { changed: readonly string[]; enabled: boolean },
  now: number,
): Promise<void> {
  const before = polls(service.type, service.before);
  const after = polls(service.type, service.after);
  if (!after) {
    if (before) await stopPolling(db, service.id, now);
    return;
  }
  if (before && change.changed.length === 0 && !change.enabled) return;
  if (change.changed.some((field) => !IMPORT_SETTINGS.includes(field))) {
    await deletePollRow(db, service.userId, service.id);
  }
  await stopPolling(db, service.id, now);
  await queuePoll(db, service.id, now, now);
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
