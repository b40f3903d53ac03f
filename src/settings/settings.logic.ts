// A person's settings that items depend on (docs/api.md "Objects": settings). A user without a row
// has the defaults below; the row is written on the first change. GET/POST /settings (and
// display_name, bio, which live on the user) build on these two functions.
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { fieldError, invalid, type FieldError } from '../http/errors.ts';
import { nowMs } from '../lib/time.ts';
import { findSettingsRow, upsertSettingsRow, type SettingsRow } from './settings.repo.ts';

export interface Settings {
  /** The scope a new item gets when its request names none. */
  defaultScopes: { posts: ScopeValue; media: ScopeValue; locations: ScopeValue };
  /** IANA time zone, for EXIF times that carry no offset. */
  timezone: string;
  /** Public locations are rounded to a grid of this many metres; 0 serves them exactly. */
  publicLocationPrecisionM: number;
}

/**
 * The defaults. Posts are written to be read: public. Locations are private (docs/api.md: "locations
 * default to private"), and so are media: a photo carries where and when it was taken, so
 * publishing one should be a choice, not an accident. 1000 m hides the house, not the town.
 */
export const DEFAULT_SETTINGS: Settings = {
  defaultScopes: { posts: 'public', media: 'private', locations: 'private' },
  timezone: 'UTC',
  publicLocationPrecisionM: 1000,
};

export const PRECISION_MAX_M = 100_000;

function fromRow(row: SettingsRow): Settings {
  return {
    defaultScopes: {
      posts: row.default_post_scope,
      media: row.default_media_scope,
      locations: row.default_location_scope,
    },
    timezone: row.timezone,
    publicLocationPrecisionM: row.public_location_precision_m,
  };
}

export async function getSettings(db: Db, userId: string): Promise<Settings> {
  const row = await findSettingsRow(db, userId);
  return row ? fromRow(row) : structuredClone(DEFAULT_SETTINGS);
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export interface SettingsChange {
  defaultScopes?: Partial<Settings['defaultScopes']>;
  timezone?: string;
  publicLocationPrecisionM?: number;
}

/** What is wrong with a change, field by field (paths as in the POST /settings body). */
export function settingsProblems(change: SettingsChange): FieldError[] {
  const errors: FieldError[] = [];
  if (change.timezone !== undefined && !isTimeZone(change.timezone)) {
    errors.push(fieldError('body/timezone', 'is not an IANA time zone name'));
  }
  const precision = change.publicLocationPrecisionM;
  if (precision !== undefined && (!Number.isInteger(precision) || precision < 0 || precision > PRECISION_MAX_M)) {
    errors.push(fieldError('body/public_location_precision_m', `must be a whole number from 0 to ${PRECISION_MAX_M}`));
  }
  return errors;
}

/** Applies a partial change and returns the whole new settings; 400 for a bad value. */
export async function updateSettings(db: Db, userId: string, change: SettingsChange): Promise<Settings> {
  const errors = settingsProblems(change);
  if (errors.length > 0) throw invalid('The settings are invalid', errors);
  const current = await getSettings(db, userId);
  const next: Settings = {
    defaultScopes: { ...current.defaultScopes, ...change.defaultScopes },
    timezone: change.timezone ?? current.timezone,
    publicLocationPrecisionM: change.publicLocationPrecisionM ?? current.publicLocationPrecisionM,
  };
  await upsertSettingsRow(db, {
    user_id: userId,
    default_post_scope: next.defaultScopes.posts,
    default_media_scope: next.defaultScopes.media,
    default_location_scope: next.defaultScopes.locations,
    timezone: next.timezone,
    public_location_precision_m: next.publicLocationPrecisionM,
    updated_at: nowMs(),
  });
  return next;
}
