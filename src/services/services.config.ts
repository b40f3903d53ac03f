// A service's configuration checked against its type's schema (docs/api.md "Services and
// groups"): what is wrong with each field, in the person's words.
import { Compile } from 'typebox/compile';
import { type FieldError, invalid } from '../core/errors.ts';
import { connectors } from './connectors/index.ts';
import type { ServiceType } from './connectors/types.ts';

/** A config value: text, a number (minutes, counts) or a switch (Mastodon's `import`). */
export type ConfigValue = string | number | boolean;

const configCheckers = Object.fromEntries(
  Object.entries(connectors).map(([type, connector]) => [type, Compile(connector.configSchema)]),
) as Record<ServiceType, ReturnType<typeof Compile>>;

/** The config of `POST /services`, checked against its type's schema; 400 names each field. */
export function validateConfig(type: ServiceType, config: Record<string, unknown>): Record<string, ConfigValue> {
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
