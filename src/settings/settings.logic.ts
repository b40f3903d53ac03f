// A person's settings that items depend on (docs/api.md "Objects": settings). A user without a row
// has the defaults below; the row is written on the first change. GET/POST /settings (and
// display_name, bio, which live on the user) build on these two functions.
import type { Db } from '../db/database.ts';
import type { ScopeValue } from '../db/schema.ts';
import { fieldError, invalid, type FieldError } from '../core/errors.ts';
import { nowMs } from '../lib/time.ts';
import { lockPlacesForChange, PRECISION_DEFAULT_M, PRECISION_MAX_M, refreshHiddenFlags } from '../privacy/places.ts';
import { normalZones, parseZones, sameZones, zoneProblems, type Zone } from '../privacy/zones.ts';
import { findSettingsRow, upsertSettingsRow, type SettingsRow } from './settings.repo.ts';

export interface Settings {
  /** The scope a new item gets when its request names none. */
  defaultScopes: { posts: ScopeValue; media: ScopeValue; locations: ScopeValue };
  /** IANA time zone, for EXIF times that carry no offset. */
  timezone: string;
  /** Public locations are rounded to a grid of this many metres; 0 serves them exactly. */
  publicLocationPrecisionM: number;
  /** Circles whose points strangers never see (src/privacy/zones.ts). */
  privacyZones: Zone[];
}

/**
 * The defaults. Posts are written to be read: public. Locations are private (docs/api.md: "locations
 * default to private"), and so are media: a photo carries where and when it was taken, so
 * publishing one should be a choice, not an accident. The precision: src/privacy/places.ts.
 */
export const DEFAULT_SETTINGS: Settings = {
  defaultScopes: { posts: 'public', media: 'private', locations: 'private' },
  timezone: 'UTC',
  publicLocationPrecisionM: PRECISION_DEFAULT_M,
  privacyZones: [],
};

function fromRow(row: SettingsRow): Settings {
  return {
    defaultScopes: {
      posts: row.default_post_scope,
      media: row.default_media_scope,
      locations: row.default_location_scope,
    },
    timezone: row.timezone,
    publicLocationPrecisionM: row.public_location_precision_m,
    privacyZones: parseZones(row.privacy_zones),
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
  privacyZones?: Zone[] | undefined;
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
  if (change.privacyZones !== undefined) errors.push(...zoneProblems(change.privacyZones, 'body/privacy_zones'));
  return errors;
}

/**
 * Applies a partial change and returns the whole new settings; 400 for a bad value. A change of
 * the zones or the precision sets the hidden flag of every point it concerns in the same
 * transaction, so no answer ever sees the new settings with the old flags (src/privacy/places.ts).
 */
export async function updateSettings(db: Db, userId: string, change: SettingsChange): Promise<Settings> {
  const errors = settingsProblems(change);
  if (errors.length > 0) throw invalid('The settings are invalid', errors);
  if (!db.isTransaction) return db.transaction().execute((trx) => updateSettings(trx, userId, change));
  await lockPlacesForChange(db, userId);
  const current = await getSettings(db, userId);
  const next: Settings = {
    defaultScopes: { ...current.defaultScopes, ...change.defaultScopes },
    timezone: change.timezone ?? current.timezone,
    publicLocationPrecisionM: change.publicLocationPrecisionM ?? current.publicLocationPrecisionM,
    privacyZones: change.privacyZones === undefined ? current.privacyZones : normalZones(change.privacyZones),
  };
  await upsertSettingsRow(db, {
    user_id: userId,
    default_post_scope: next.defaultScopes.posts,
    default_media_scope: next.defaultScopes.media,
    default_location_scope: next.defaultScopes.locations,
    timezone: next.timezone,
    public_location_precision_m: next.publicLocationPrecisionM,
    privacy_zones: JSON.stringify(next.privacyZones),
    updated_at: nowMs(),
  });
  const zonesChanged = !sameZones(current.privacyZones, next.privacyZones);
  const precisionChanged = current.publicLocationPrecisionM !== next.publicLocationPrecisionM;
  if (zonesChanged || (precisionChanged && next.privacyZones.length > 0)) {
    await refreshHiddenFlags(db, userId, next.privacyZones, next.publicLocationPrecisionM);
  }
  return next;
}
