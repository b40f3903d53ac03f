// POST /services/<id> (docs/api.md "Changing a service"): a partial change of a service's name,
// switch and settings. Settings are checked by the type's own schema, as at creation; secrets
// stay write-only: one given replaces the stored one, one left out is kept.
import type { Db } from '../db/database.ts';
import { AppError, type FieldError, invalid, notFound } from '../core/errors.ts';
import { nowMs } from '../lib/time.ts';
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';
import { reschedulePolling } from './polling/polls.schedule.ts';
import { openSecrets, sealSecrets, type SecretKey } from './secrets.ts';
import { configErrors, type ConfigValue } from './services.config.ts';
import { toService } from './services.logic.ts';
import * as repo from './services.repo.ts';
import { REDACTED, type ServiceChange, type Service } from './services.schemas.ts';
import { missingSecrets, splitSecrets } from './services.secrets.ts';

/** The stored config with the change applied; `changed` names each field whose value changed. */
function applyConfig(
  type: ServiceType,
  stored: Record<string, unknown>,
  given: Record<string, unknown>,
): { merged: Record<string, unknown>; changed: string[]; errors: FieldError[] } {
  const { secretFields } = connectors[type];
  const merged = { ...stored };
  const changed: string[] = [];
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(given)) {
    const secret = secretFields.includes(field);
    // A client that sends back what it read keeps the secret it cannot see.
    if (secret && value === REDACTED) continue;
    if (value === null) {
      if (secret) errors.push({ path: `body/config/${field}`, message: 'is a secret: give a new value to replace it' });
      else if (Object.hasOwn(merged, field)) {
        delete merged[field];
        changed.push(field);
      }
      continue;
    }
    if (merged[field] !== value) changed.push(field);
    merged[field] = value;
  }
  return { merged, changed, errors };
}

/**
 * Changes the caller's service and answers it as `GET /services/<id>` shows it. 404 for
 * another person's or a missing one; 400 for a config its type's schema refuses; 409
 * (`service_needs_secrets`) for enabling a service that lacks secrets, naming each.
 */
export async function changeService(
  db: Db,
  key: SecretKey,
  baseUrl: string,
  userId: string,
  id: string,
  change: ServiceChange,
): Promise<Service> {
  return db.transaction().execute(async (trx) => {
    const row = await repo.findServiceRow(trx, userId, id);
    if (!row) throw notFound('No such service.');
    const type = row.type as ServiceType;
    const storedPlain = JSON.parse(row.config) as Record<string, ConfigValue>;
    const storedSecrets = openSecrets(key, row.id, row.secrets);
    const { merged, changed, errors } = applyConfig(type, { ...storedPlain, ...storedSecrets }, change.config ?? {});
    const { plain, secrets } = splitSecrets(type, merged as Record<string, ConfigValue>);
    const missing = missingSecrets(type, secrets);
    // A secret that was never entered is not this request's fault unless it enables the service.
    const lacking = new Set(missing.map((field) => `body/config/${field}`));
    errors.push(...configErrors(type, merged).filter((e) => !(lacking.has(e.path) && e.message === 'is required')));
    if (errors.length > 0) throw invalid(`The ${type} configuration is invalid`, errors);
    const enabled = change.enabled ?? row.enabled === 1;
    if (enabled && missing.length > 0) {
      throw new AppError(
        'service_needs_secrets',
        `The service cannot be enabled without its secrets: ${missing.join(', ')}.`,
        {
          errors: missing.map((field) => ({
            path: `body/config/${field}`,
            message: 'is required to enable the service',
          })),
        },
      );
    }
    const now = nowMs();
    const next: repo.ServiceRow = {
      ...row,
      name: change.name ?? row.name,
      enabled: enabled ? 1 : 0,
      config: JSON.stringify(plain),
      secrets: changed.some((field) => connectors[type].secretFields.includes(field))
        ? sealSecrets(key, row.id, secrets)
        : row.secrets,
      updated_at: now,
    };
    await repo.updateService(trx, next);
    await reschedulePolling(
      trx,
      { id: row.id, userId, type, before: storedPlain, after: plain },
      { changed, enabled: enabled && row.enabled !== 1 },
      now,
    );
    return toService(next, baseUrl, missing);
  });
}
