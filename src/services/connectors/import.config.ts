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
    title: 'Look for new entries every … minutes',
    description: `5 to 1440 minutes; ${DEFAULT_INTERVAL_MINUTES} when left empty.`,
  }),
);

export const BACKLOG_SCHEMA = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 500,
    title: 'How many older entries to bring in at first',
    description: 'The newest ones, 0 to 500; 50 when left empty. Older ones are skipped.',
  }),
);

export const IMPORT_SCOPE_SCHEMA = Type.Optional(
  Type.Union([Type.Literal('public'), Type.Literal('private')], {
    title: 'Who can see what comes in',
    description: 'Public or private; your default for new posts when left empty.',
  }),
);

export function intervalMinutes(config: Readonly<Record<string, unknown>>): number {
  return typeof config.interval_minutes === 'number' ? config.interval_minutes : DEFAULT_INTERVAL_MINUTES;
}

export function importScope(config: Readonly<Record<string, unknown>>): ScopeValue | undefined {
  return config.scope === 'public' || config.scope === 'private' ? config.scope : undefined;
}
