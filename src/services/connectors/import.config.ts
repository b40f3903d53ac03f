// The settings every type that brings posts in shares (docs/api.md "Bringing posts in").
import { Type } from 'typebox';
import type { ScopeValue } from '../../db/schema.ts';

export const DEFAULT_INTERVAL_MINUTES = 15;

/** The settings that say how and how often a service polls; every other field says where from. */
export const IMPORT_SETTINGS: readonly string[] = ['import', 'interval_minutes', 'backlog', 'scope'];

export const INTERVAL_SCHEMA = Type.Optional(
  Type.Integer({
    minimum: 5,
    maximum: 1440,
    description: `How often to look for new entries, in minutes (default ${DEFAULT_INTERVAL_MINUTES}).`,
  }),
);

export const BACKLOG_SCHEMA = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 500,
    description: 'How many of the newest entries the first poll brings in (default 50); older ones are skipped.',
  }),
);

export const IMPORT_SCOPE_SCHEMA = Type.Optional(
  Type.Union([Type.Literal('public'), Type.Literal('private')], {
    description: "The scope of the posts brought in; default: the person's default scope for posts at the time.",
  }),
);

export function intervalMinutes(config: Readonly<Record<string, unknown>>): number {
  return typeof config.interval_minutes === 'number' ? config.interval_minutes : DEFAULT_INTERVAL_MINUTES;
}

export function importScope(config: Readonly<Record<string, unknown>>): ScopeValue | undefined {
  return config.scope === 'public' || config.scope === 'private' ? config.scope : undefined;
}
