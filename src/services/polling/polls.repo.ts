// All SQL of polling services: their state, the entries they have shown, the one poll job each.
import type { Db } from '../../db/database.ts';
import type { ImportedEntriesTable, ServicePollsTable } from '../../db/schema.services.ts';
import { enqueueJobOnce } from '../../jobs/jobs.repo.ts';

export type PollRow = ServicePollsTable;
export type EntryRow = ImportedEntriesTable;

export const POLL_JOB = 'poll';
/** Attempts of a poll job: what fails there is the database, not the source (that is a poll that worked). */
export const POLL_MAX_ATTEMPTS = 3;

/** Queues the service's next poll, unless one is already queued or running (`jobs_poll_once`). */
export function queuePoll(db: Db, serviceId: string, runAt: number, now: number): Promise<void> {
  const job = {
    kind: POLL_JOB,
    ref: serviceId,
    payload: { service_id: serviceId },
    maxAttempts: POLL_MAX_ATTEMPTS,
    runAt,
  };
  return enqueueJobOnce(db, job, now);
}

export function findPollRow(db: Db, userId: string, serviceId: string): Promise<PollRow | undefined> {
  return db
    .selectFrom('service_polls')
    .selectAll()
    .where('user_id', '=', userId)
    .where('service_id', '=', serviceId)
    .executeTakeFirst();
}

export async function savePollRow(db: Db, row: PollRow): Promise<void> {
  const { user_id: _user, service_id: _service, ...change } = row;
  await db
    .insertInto('service_polls')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'service_id']).doUpdateSet(change))
    .execute();
}

/** Forgets what the service's polls left (validators, cursor, failures): the next poll is a first one. */
export async function deletePollRow(db: Db, userId: string, serviceId: string): Promise<void> {
  await db.deleteFrom('service_polls').where('user_id', '=', userId).where('service_id', '=', serviceId).execute();
}

/** The keys and URLs among these that the service has shown before. */
export async function seenEntries(
  db: Db,
  userId: string,
  serviceId: string,
  keys: readonly string[],
  urls: readonly string[],
): Promise<{ keys: Set<string>; urls: Set<string> }> {
  const seen = { keys: new Set<string>(), urls: new Set<string>() };
  const base = db
    .selectFrom('imported_entries')
    .select(['key', 'url'])
    .where('user_id', '=', userId)
    .where('service_id', '=', serviceId);
  for (let i = 0; i < keys.length; i += 500) {
    for (const row of await base.where('key', 'in', keys.slice(i, i + 500)).execute()) seen.keys.add(row.key);
  }
  for (let i = 0; i < urls.length; i += 500) {
    for (const row of await base.where('url', 'in', urls.slice(i, i + 500)).execute()) {
      if (row.url !== null) seen.urls.add(row.url);
    }
  }
  return seen;
}

/** Records an entry as seen; false when it was already recorded (then nothing is stored for it). */
export async function recordEntry(db: Db, row: EntryRow): Promise<boolean> {
  const inserted = await db
    .insertInto('imported_entries')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'service_id', 'key']).doNothing())
    .returning('key')
    .execute();
  return inserted.length > 0;
}

/** The services of these types (the ones that can poll), for putting missing poll jobs back. */
export function listServicesOfTypes(db: Db, types: readonly string[]) {
  if (types.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('services')
    .select(['id', 'type', 'config'])
    .where('type', 'in', [...types])
    .execute();
}
