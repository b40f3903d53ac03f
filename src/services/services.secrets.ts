// A service's secret fields: split from the rest of its configuration, made by Waypost where the
// type makes them, and the ones a service lacks. Sealing them is secrets.ts.
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';
import type { ConfigValue } from './services.config.ts';

/**
 * The secret fields a service needs (its schema requires them) and has not stored: a service
 * restored from an export comes back without its secrets (docs/api.md "Changing a service").
 */
export function missingSecrets(type: ServiceType, secrets: Readonly<Record<string, string>>): string[] {
  const { secretFields, configSchema } = connectors[type];
  const required = new Set<string>(configSchema.required ?? []);
  return secretFields.filter((field) => required.has(field) && !Object.hasOwn(secrets, field));
}

/** Fresh values for the secrets Waypost makes (`makeSecrets`) that `given` lacks. */
export function madeSecrets(type: ServiceType, given: Record<string, unknown>): Record<string, string> {
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
