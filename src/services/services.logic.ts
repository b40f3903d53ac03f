// Services and service groups: rows to API objects, per-type config validation
// (services.config.ts), secrets sealed before they are stored and never shown again
// (services.secrets.ts), what a tracker has received (services.activity.ts).
import type { Db } from '../db/database.ts';
import { badRequest, notFound } from '../core/errors.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { newId } from '../lib/ids.ts';
import type { Outbound } from '../lib/ssrf.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { cancelJobs } from '../jobs/jobs.repo.ts';
import type { TestResult } from './connectors/connector.ts';
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';
import { DELIVERY_JOB, cancelPendingDeliveries } from './deliveries.repo.ts';
import { REDACTED, type NewService, type Service, type ServiceGroup } from './services.schemas.ts';
import { polls, startPolling, stopPolling } from './polling/polls.schedule.ts';
import { openSecrets, sealSecrets, type SecretKey } from './secrets.ts';
import { todayFor, withActivity } from './services.activity.ts';
import { validateConfig, type ConfigValue } from './services.config.ts';
import { madeSecrets, missingSecrets, splitSecrets } from './services.secrets.ts';
import { connectorState } from './services.state.ts';
import * as repo from './services.repo.ts';

/** Where a tracker's app sends its points (docs/trackers.md). */
export function ingestUrl(baseUrl: string, serviceId: string): string {
  return `${baseUrl}/ingest/${serviceId}`;
}

/** A fresh ingest token: 256 random bits, shown once; only its SHA-256 is stored. */
function newIngestToken(): { token: string; hash: string } {
  const token = randomToken(32);
  return { token, hash: sha256Hex(token) };
}

/**
 * A service row as the API shows it. `missingSecrets`: the secret fields it lacks (a service
 * restored from an export has none), shown as `missing_secrets` when there are any.
 */
export function toService(row: repo.ServiceRow, baseUrl: string, missingSecrets: readonly string[] = []): Service {
  const type = row.type as ServiceType;
  const connector = connectors[type];
  const config = JSON.parse(row.config) as Record<string, ConfigValue>;
  // A type that can poll has the `import` capability when this configuration polls.
  const imports = !connector.capabilities.includes('import') && polls(type, config);
  // Secrets are not in `config` at all; their names are shown so a client sees they are set.
  for (const field of connector.secretFields) config[field] = REDACTED;
  return {
    id: row.id,
    type,
    name: row.name,
    enabled: row.enabled === 1,
    capabilities: imports ? [...connector.capabilities, 'import'] : [...connector.capabilities],
    config,
    status: row.status === 'error' ? 'error' : 'ok',
    last_error: row.last_error,
    created_at: msToSeconds(row.created_at),
    ...(connector.ingest ? { ingest: { url: ingestUrl(baseUrl, row.id) } } : {}),
    ...(missingSecrets.length > 0 ? { missing_secrets: [...missingSecrets] } : {}),
  };
}

function withMissing(row: repo.ServiceRow, baseUrl: string, key: SecretKey): Service {
  return toService(row, baseUrl, missingSecrets(row.type as ServiceType, openSecrets(key, row.id, row.secrets)));
}

function toGroup(row: repo.GroupRow): ServiceGroup {
  return { id: row.id, name: row.name, service_ids: row.service_ids, created_at: msToSeconds(row.created_at) };
}

export async function createService(
  db: Db,
  key: SecretKey,
  baseUrl: string,
  userId: string,
  input: NewService,
): Promise<Service> {
  const connector = connectors[input.type];
  // A secret Waypost makes (a webhook's signing secret) is made when none is given, and shown once.
  const made = madeSecrets(input.type, input.config);
  const config = validateConfig(input.type, { ...input.config, ...made });
  const id = newId();
  const { plain, secrets } = splitSecrets(input.type, config);
  const now = nowMs();
  const ingest = connector.ingest ? newIngestToken() : undefined;
  const row: repo.ServiceRow = {
    id,
    user_id: userId,
    type: input.type,
    name: input.name,
    enabled: input.enabled === false ? 0 : 1,
    config: JSON.stringify(plain),
    secrets: sealSecrets(key, id, secrets),
    status: 'ok',
    last_error: null,
    created_at: now,
    updated_at: now,
    ingest_token_hash: ingest?.hash ?? null,
  };
  await db.transaction().execute(async (trx) => {
    await repo.insertService(trx, row);
    await startPolling(trx, { id, type: input.type, config: plain }, now);
  });
  const service = toService(row, baseUrl);
  if (Object.keys(made).length > 0) service.generated_secrets = made;
  return ingest ? { ...service, ingest: { url: ingestUrl(baseUrl, id), token: ingest.token } } : service;
}

/**
 * New values for the secrets Waypost makes for a service of this type (a webhook's signing
 * secret), in this answer only; the old ones stop working at once. The service stays as it was
 * otherwise (a restored one lacking its secret still needs enabling). 400 for a type whose
 * secrets are entered, not made.
 */
export async function renewSecrets(
  db: Db,
  key: SecretKey,
  baseUrl: string,
  userId: string,
  id: string,
): Promise<Service> {
  const row = await repo.findServiceRow(db, userId, id);
  if (!row) throw notFound('No such service.');
  const type = row.type as ServiceType;
  const made = madeSecrets(type, {});
  if (Object.keys(made).length === 0) {
    throw badRequest(`Waypost makes no secret for a ${type} service: its secrets are entered.`, [
      { path: 'params/id', message: `is a ${type} service, whose secrets are entered` },
    ]);
  }
  const secrets = { ...openSecrets(key, row.id, row.secrets), ...made };
  const next: repo.ServiceRow = { ...row, secrets: sealSecrets(key, row.id, secrets), updated_at: nowMs() };
  await repo.updateService(db, next);
  return { ...toService(next, baseUrl, missingSecrets(type, secrets)), generated_secrets: made };
}

/** The person's services; with `key`, each says which secrets it lacks (`missing_secrets`). */
export async function listServices(db: Db, baseUrl: string, userId: string, key?: SecretKey): Promise<Service[]> {
  const rows = await repo.listServiceRows(db, userId);
  const today = await todayFor(db, userId, rows);
  return rows.map((row) => withActivity(key ? withMissing(row, baseUrl, key) : toService(row, baseUrl), row, today));
}

export async function getService(
  db: Db,
  baseUrl: string,
  userId: string,
  id: string,
  key?: SecretKey,
): Promise<Service> {
  const row = await repo.findServiceRow(db, userId, id);
  if (!row) throw notFound('No such service.');
  const service = key ? withMissing(row, baseUrl, key) : toService(row, baseUrl);
  return withActivity(service, row, await todayFor(db, userId, [row]));
}

/**
 * A new ingest token for a tracker; the old one stops working with this commit. 400 for a
 * type without an ingest URL.
 */
export async function rotateIngestToken(
  db: Db,
  baseUrl: string,
  userId: string,
  id: string,
): Promise<{ url: string; token: string }> {
  const row = await repo.findServiceRow(db, userId, id);
  if (!row) throw notFound('No such service.');
  if (!connectors[row.type as ServiceType].ingest) {
    throw badRequest(`A ${row.type} service has no ingest URL and no token to rotate.`, [
      { path: 'params/id', message: 'is not a tracker' },
    ]);
  }
  const { token, hash } = newIngestToken();
  await repo.setIngestTokenHash(db, userId, id, hash, nowMs());
  return { url: ingestUrl(baseUrl, id), token };
}

/**
 * POST /services/<id>/test (docs/api.md "Services and groups"): a webhook gets a signed test
 * event; other types have their credentials checked where the protocol allows. The target's
 * answer is reported, whatever it is; 400 for a type that has no test.
 */
export async function testService(deps: TestDeps, userId: string, id: string): Promise<TestResult> {
  const { db, key, outbound } = deps;
  const row = await repo.findServiceRow(db, userId, id);
  if (!row) throw notFound('No such service.');
  const connector = connectors[row.type as ServiceType];
  if (!connector.test) {
    throw badRequest(`A ${row.type} service has nothing to test: it reaches no outside server.`, [
      { path: 'params/id', message: `is a ${row.type} service, which has no test` },
    ]);
  }
  return connector.test({
    serviceId: row.id,
    config: JSON.parse(row.config) as Record<string, string>,
    secrets: openSecrets(key, row.id, row.secrets),
    state: connectorState(db, key, row),
    outbound,
    now: deps.now ?? Date.now,
    testId: newId(),
  });
}

export interface TestDeps {
  db: Db;
  key: SecretKey;
  outbound: Outbound;
  now?: () => number;
}

/** Services that publish nothing (trackers) cannot be group members: a group is where posts go. */
function notPublishing(path: string, type: string) {
  return { path, message: `is a ${type} service, which publishes nothing` };
}

/**
 * Deletes a service: it leaves its groups and its pending deliveries are cancelled (docs/api.md
 * "Services and groups"); deliveries already made keep their record.
 */
export async function deleteService(db: Db, userId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const now = nowMs();
    if (!(await repo.deleteServiceRow(trx, userId, id))) throw notFound('No such service.');
    const cancelled = await cancelPendingDeliveries(trx, userId, id, now);
    await cancelJobs(trx, DELIVERY_JOB, cancelled, now);
    await stopPolling(trx, id, now);
  });
}

export async function listGroups(db: Db, userId: string): Promise<ServiceGroup[]> {
  return (await repo.listGroupRows(db, userId)).map(toGroup);
}

export async function getGroup(db: Db, userId: string, id: string): Promise<ServiceGroup> {
  const row = await repo.findGroupRow(db, userId, id);
  if (!row) throw notFound('No such service group.');
  return toGroup(row);
}

export async function createGroup(
  db: Db,
  userId: string,
  input: { name: string; service_ids?: string[] | undefined },
): Promise<ServiceGroup> {
  const serviceIds = input.service_ids ?? [];
  return db.transaction().execute(async (trx) => {
    const owned = await repo.ownedServiceTypes(trx, userId, serviceIds);
    const errors = serviceIds.flatMap((id, index) => {
      const type = owned.get(id);
      const path = `body/service_ids/${index}`;
      if (type === undefined) return [{ path, message: 'is not one of your services' }];
      return connectors[type as ServiceType].publish ? [] : [notPublishing(path, type)];
    });
    if (errors.length > 0) {
      throw badRequest('Some services are not yours, do not exist, or publish nothing.', errors);
    }
    const id = newId();
    const now = nowMs();
    await repo.insertGroup(trx, { id, user_id: userId, name: input.name, created_at: now });
    for (const [index, serviceId] of serviceIds.entries())
      await repo.addMember(trx, userId, id, serviceId, now + index);
    return getGroup(trx, userId, id);
  });
}

/** Deletes a group. Deliveries already queued through it go on (they belong to the post). */
export async function deleteGroup(db: Db, userId: string, id: string): Promise<void> {
  if (!(await repo.deleteGroupRow(db, userId, id))) throw notFound('No such service group.');
}

/** Adds a service to a group; adding it again is harmless. Another person's either is 404. */
export async function addGroupMember(
  db: Db,
  userId: string,
  groupId: string,
  serviceId: string,
): Promise<ServiceGroup> {
  return db.transaction().execute(async (trx) => {
    if (!(await repo.findGroupRow(trx, userId, groupId))) throw notFound('No such service group.');
    const service = await repo.findServiceRow(trx, userId, serviceId);
    if (!service) throw notFound('No such service.');
    if (!connectors[service.type as ServiceType].publish) {
      throw badRequest(`A ${service.type} service publishes nothing, so it cannot be in a service group.`, [
        notPublishing('params/service_id', service.type),
      ]);
    }
    await repo.addMember(trx, userId, groupId, serviceId, nowMs());
    return getGroup(trx, userId, groupId);
  });
}

/** Removes a service from a group; removing one that is not a member is harmless. */
export async function removeGroupMember(db: Db, userId: string, groupId: string, serviceId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!(await repo.findGroupRow(trx, userId, groupId))) throw notFound('No such service group.');
    if (!(await repo.findServiceRow(trx, userId, serviceId))) throw notFound('No such service.');
    await repo.removeMember(trx, userId, groupId, serviceId);
  });
}
