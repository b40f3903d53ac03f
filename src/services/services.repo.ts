// All SQL for services and service groups. Every query names the owner: another person's
// service or group is simply not found.
import type { Db } from '../db/database.ts';
import type { ServiceGroupsTable, ServicesTable } from '../db/schema.services.ts';
import { selectOwned } from '../items/owned.repo.ts';

export type ServiceRow = ServicesTable;
export type GroupRow = ServiceGroupsTable & { service_ids: string[] };

export async function insertService(db: Db, row: ServiceRow): Promise<void> {
  await db.insertInto('services').values(row).execute();
}

export function listServiceRows(db: Db, userId: string): Promise<ServiceRow[]> {
  return db
    .selectFrom('services')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findServiceRow(db: Db, userId: string, id: string): Promise<ServiceRow | undefined> {
  return db.selectFrom('services').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

/** Saves a changed service: its name, switch, settings and sealed secrets. */
export async function updateService(db: Db, row: ServiceRow): Promise<void> {
  await db
    .updateTable('services')
    .set({ name: row.name, enabled: row.enabled, config: row.config, secrets: row.secrets, updated_at: row.updated_at })
    .where('user_id', '=', row.user_id)
    .where('id', '=', row.id)
    .execute();
}

/** Deletes the service; its group memberships go with it (foreign key cascade). */
export async function deleteServiceRow(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('services').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function setServiceStatus(
  db: Db,
  id: string,
  status: 'ok' | 'error',
  lastError: string | null,
  now: number,
): Promise<void> {
  await db
    .updateTable('services')
    .set({ status, last_error: lastError, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Saves what the service's connector keeps between deliveries (sealed), or clears it. */
export async function setServiceState(db: Db, id: string, sealed: string | null): Promise<void> {
  await db.updateTable('services').set({ state: sealed }).where('id', '=', id).execute();
}

export async function insertGroup(db: Db, row: ServiceGroupsTable): Promise<void> {
  await db.insertInto('service_groups').values(row).execute();
}

async function withMembers(db: Db, userId: string, rows: ServiceGroupsTable[]): Promise<GroupRow[]> {
  if (rows.length === 0) return [];
  const members = await db
    .selectFrom('service_group_members')
    .select(['group_id', 'service_id'])
    .where('user_id', '=', userId)
    .where(
      'group_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('added_at')
    .orderBy('service_id')
    .execute();
  return rows.map((row) => ({
    ...row,
    service_ids: members.filter((m) => m.group_id === row.id).map((m) => m.service_id),
  }));
}

export async function listGroupRows(db: Db, userId: string): Promise<GroupRow[]> {
  const rows = await db
    .selectFrom('service_groups')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return withMembers(db, userId, rows);
}

export async function findGroupRow(db: Db, userId: string, id: string): Promise<GroupRow | undefined> {
  const row = await db
    .selectFrom('service_groups')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? (await withMembers(db, userId, [row]))[0] : undefined;
}

export async function deleteGroupRow(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('service_groups')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Adds a member; adding one that is already there changes nothing. */
export async function addMember(
  db: Db,
  userId: string,
  groupId: string,
  serviceId: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('service_group_members')
    .values({ user_id: userId, group_id: groupId, service_id: serviceId, added_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'group_id', 'service_id']).doNothing())
    .execute();
}

export async function removeMember(db: Db, userId: string, groupId: string, serviceId: string): Promise<void> {
  await db
    .deleteFrom('service_group_members')
    .where('user_id', '=', userId)
    .where('group_id', '=', groupId)
    .where('service_id', '=', serviceId)
    .execute();
}

/** The caller's group ids among `ids` (unknown and foreign ones are left out). */
export async function ownedGroupIds(db: Db, userId: string, ids: readonly string[]): Promise<Set<string>> {
  return new Set((await selectOwned(db, 'service_groups', 'id', userId, ids)).keys());
}

/** The caller's services among `ids`, each with its type. */
export function ownedServiceTypes(db: Db, userId: string, ids: readonly string[]): Promise<Map<string, string>> {
  return selectOwned<string>(db, 'services', 'type', userId, ids);
}

/** A new ingest token; the one it replaces is kept as `previous_token_hash`, to recognise a phone still sending it. */
export async function setIngestTokenHash(db: Db, userId: string, id: string, hash: string, now: number): Promise<void> {
  await db
    .updateTable('services')
    .set((eb) => ({
      previous_token_hash: eb.ref('ingest_token_hash'),
      ingest_token_hash: hash,
      refused_at: null,
      refused_reason: null,
      updated_at: now,
    }))
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .execute();
}

/** What the ingest route needs of a service, found by id alone: the URL names no person. */
export function findTrackerRow(db: Db, id: string) {
  return db
    .selectFrom('services')
    .select(['id', 'user_id', 'type', 'enabled', 'status', 'last_error', 'ingest_token_hash', 'previous_token_hash'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Which of `groupIds` are the user's, and the distinct enabled services across them, sorted by
 * id: one query for what POST /posts checks and delivers to.
 */
export async function groupsWithEnabledServices(
  db: Db,
  userId: string,
  groupIds: readonly string[],
): Promise<{ owned: Set<string>; serviceIds: string[] }> {
  if (groupIds.length === 0) return { owned: new Set(), serviceIds: [] };
  const rows = await db
    .selectFrom('service_groups as g')
    .leftJoin('service_group_members as m', (join) =>
      join.onRef('m.group_id', '=', 'g.id').onRef('m.user_id', '=', 'g.user_id'),
    )
    .leftJoin('services as s', (join) => join.onRef('s.id', '=', 'm.service_id').on('s.enabled', '=', 1))
    .select(['g.id as group_id', 's.id as service_id'])
    .where('g.user_id', '=', userId)
    .where('g.id', 'in', [...new Set(groupIds)])
    .execute();
  const services = new Set<string>();
  for (const row of rows) if (row.service_id !== null) services.add(row.service_id);
  return { owned: new Set(rows.map((row) => row.group_id)), serviceIds: [...services].sort() };
}

/** A tracker's request refused although it carried a token the tracker had (docs/trackers.md "The tracker page"). */
export async function recordTrackerRefusal(
  db: Db,
  id: string,
  reason: 'replaced_token' | 'switched_off',
  now: number,
): Promise<void> {
  await db.updateTable('services').set({ refused_at: now, refused_reason: reason }).where('id', '=', id).execute();
}

/** Points arrived from a tracker: when, and the count of the owner's local `day` (days since 1970-01-01). */
export async function recordTrackerPoints(db: Db, id: string, now: number, day: number, count: number): Promise<void> {
  await db
    .updateTable('services')
    .set((eb) => ({
      last_point_at: now,
      points_today: eb
        .case()
        .when('points_day', '=', day)
        .then(eb('points_today', '+', count))
        .else(count)
        .end(),
      points_day: day,
    }))
    .where('id', '=', id)
    .execute();
}

/** The trackers' activity columns of a person's services (migration 0035). */
export function listTrackerActivityRows(db: Db, userId: string) {
  return db
    .selectFrom('services')
    .select(['id', 'last_point_at', 'points_day', 'points_today', 'refused_at', 'refused_reason'])
    .where('user_id', '=', userId)
    .execute();
}
