// Services and service groups: rows to API objects, per-type config validation, secrets
// sealed before they are stored and never shown again.
import { Compile } from 'typebox/compile';
import type { Db } from '../db/database.ts';
import { badRequest, notFound, type FieldError, invalid } from '../core/errors.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { newId } from '../lib/ids.ts';
import type { Outbound } from '../lib/ssrf.ts';
import { localDay, msToSeconds, nowMs } from '../lib/time.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { cancelJobs } from '../jobs/jobs.repo.ts';
import type { TestResult } from './connectors/connector.ts';
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';
import { DELIVERY_JOB, cancelPendingDeliveries } from './deliveries.repo.ts';
import { REDACTED, type NewService, type Service, type ServiceGroup } from './services.schemas.ts';
import { polls, startPolling, stopPolling } from './polling/polls.schedule.ts';
import { openSecrets, sealSecrets, type SecretKey } from './secrets.ts';
import { connectorState } from './services.state.ts';
import * as repo from './services.repo.ts';

/** A config value: text, a number (minutes, counts) or a switch (Mastodon's `import`). */
export type ConfigValue = string | number | boolean;

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

/**
 * The secret fields a service needs (its schema requires them) and has not stored: a service
 * restored from an export comes back without its secrets (docs/api.md "Changing a service").
 */
export function missingSecrets(type: ServiceType, secrets: Readonly<Record<string, string>>): string[] {
  const { secretFields, configSchema } = connectors[type];
  const required = new Set<string>(configSchema.required ?? []);
  return secretFields.filter((field) => required.has(field) && !Object.hasOwn(secrets, field));
}

function withMissing(row: repo.ServiceRow, baseUrl: string, key: SecretKey): Service {
  return toService(row, baseUrl, missingSecrets(row.type as ServiceType, openSecrets(key, row.id, row.secrets)));
}

function toGroup(row: repo.GroupRow): ServiceGroup {
  return { id: row.id, name: row.name, service_ids: row.service_ids, created_at: msToSeconds(row.created_at) };
}

const configCheckers = Object.fromEntries(
  Object.entries(connectors).map(([type, connector]) => [type, Compile(connector.configSchema)]),
) as Record<ServiceType, ReturnType<typeof Compile>>;

/** The config of `POST /services`, checked against its type's schema; 400 names each field. */
function validateConfig(type: ServiceType, config: Record<string, unknown>): Record<string, ConfigValue> {
  const errors = configErrors(type, config);
  if (errors.length === 0) return config as Record<string, ConfigValue>;
  throw invalid(`The ${type} configuration is invalid`, errors);
}

/** A config field's schema, as far as its messages need it. */
interface FieldRule {
  type?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  anyOf?: { const?: unknown }[];
  /** What to say when its pattern does not match (set on the connector's schema). */
  errorMessage?: string;
}

/**
 * What is wrong with one field, in the person's words (the page shows it beside the field). A
 * secret's value is never echoed: the message names the rule, not the input.
 */
function plainMessage(rule: FieldRule | undefined, keyword: string, fallback: string): string {
  const kinds: Record<string, string> = {
    integer: 'a whole number',
    number: 'a number',
    boolean: 'yes or no',
    string: 'text',
  };
  if (rule?.anyOf) return `must be one of: ${rule.anyOf.map((option) => String(option.const)).join(', ')}`;
  switch (keyword) {
    case 'type':
      return `must be ${kinds[rule?.type ?? ''] ?? 'of another kind'}`;
    case 'minLength':
      return rule?.minLength === 1 ? 'cannot be empty' : `must be at least ${rule?.minLength} characters long`;
    case 'maxLength':
      return `must be at most ${rule?.maxLength} characters long`;
    case 'minimum':
      return `must be at least ${rule?.minimum}`;
    case 'maximum':
      return `must be at most ${rule?.maximum}`;
    case 'pattern':
      return rule?.errorMessage ?? 'is not in the right form';
    default:
      return fallback;
  }
}

/** What is wrong with a config of this type, each field as `body/config/<name>`; [] when nothing. */
export function configErrors(type: ServiceType, config: Record<string, unknown>): FieldError[] {
  const checker = configCheckers[type];
  if (checker.Check(config)) return [];
  const rules = connectors[type].configSchema.properties as Record<string, FieldRule>;
  const errors: FieldError[] = [];
  for (const issue of checker.Errors(config)) {
    const params = issue.params as { requiredProperties?: string[]; additionalProperties?: string[] };
    if (issue.keyword === 'boolean') continue; // repeated by the additionalProperties issue
    if (params.requiredProperties) {
      for (const name of params.requiredProperties)
        errors.push({ path: `body/config/${name}`, message: 'is required' });
    } else if (params.additionalProperties) {
      for (const name of params.additionalProperties) {
        errors.push({ path: `body/config/${name}`, message: `is not a ${type} setting` });
      }
    } else {
      const field = issue.instancePath.split('/')[1] ?? '';
      const message = plainMessage(rules[field], issue.keyword, issue.message);
      errors.push({ path: `body/config${issue.instancePath}`, message });
    }
  }
  // One message a field (a union's options each report, and so may length and pattern).
  return errors.filter((e, i) => errors.findIndex((f) => f.path === e.path) === i);
}

/** Fresh values for the secrets Waypost makes (`makeSecrets`) that `given` lacks. */
function madeSecrets(type: ServiceType, given: Record<string, unknown>): Record<string, string> {
  const made: Record<string, string> = {};
  for (const [field, make] of Object.entries(connectors[type].makeSecrets ?? {})) {
    if (given[field] === undefined) made[field] = make();
  }
  return made;
}

/** A validated config in two: what is stored as it is, and the secrets, sealed before storing. */
export function splitSecrets(type: ServiceType, config: Record<string, ConfigValue>) {
  const plain: Record<string, ConfigValue> = {};
  const secrets: Record<string, string> = {};
  for (const [field, value] of Object.entries(config)) {
    if (connectors[type].secretFields.includes(field)) secrets[field] = String(value);
    else plain[field] = value;
  }
  return { plain, secrets };
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

/** Today in the person's time zone (days since 1970-01-01), read only when a tracker is among `rows`. */
async function todayFor(db: Db, userId: string, rows: readonly repo.ServiceRow[]): Promise<number | undefined> {
  if (!rows.some((row) => connectors[row.type as ServiceType].ingest)) return undefined;
  return localDay(nowMs(), (await getSettings(db, userId)).timezone);
}

/** A tracker's service object with what has arrived (`activity`); any other service as it is. */
function withActivity(service: Service, row: repo.ServiceRow, today: number | undefined): Service {
  if (today === undefined || !connectors[row.type as ServiceType].ingest) return service;
  const lastPointAt = row.last_point_at == null ? null : Number(row.last_point_at);
  // The counter holds the points of the day it was last written on: another day's count is not today's.
  const pointsToday = row.points_day != null && Number(row.points_day) === today ? Number(row.points_today ?? 0) : 0;
  return {
    ...service,
    activity: { last_point_at: lastPointAt === null ? null : msToSeconds(lastPointAt), points_today: pointsToday },
  };
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
