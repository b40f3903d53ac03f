// The settings object of GET/POST /settings (docs/api.md "Objects": settings): the item settings of
// settings.logic.ts (which item code reads) plus the profile fields that live on the user row
// and show in GET /users/<username>.
import type { Db } from '../db/database.ts';
import { unauthorized } from '../core/caller.ts';
import { fieldError, invalid, type FieldError } from '../core/errors.ts';
import { nowMs } from '../lib/time.ts';
import { findUserById, updateProfileRow, type UserRow } from '../users/users.repo.ts';
import { getSettings, settingsProblems, updateSettings, type Settings } from './settings.logic.ts';
import type { SettingsObject, SettingsObjectChange } from './settings.schemas.ts';

function toSettingsObject(settings: Settings, profile: { display_name: string; bio: string }): SettingsObject {
  return {
    default_scopes: { ...settings.defaultScopes },
    timezone: settings.timezone,
    public_location_precision_m: settings.publicLocationPrecisionM,
    privacy_zones: settings.privacyZones,
    display_name: profile.display_name,
    bio: profile.bio,
  };
}

async function profileRow(db: Db, userId: string): Promise<UserRow> {
  const row = await findUserById(db, userId);
  // A valid token for a deleted user: the token should have died with the account.
  if (!row) throw unauthorized();
  return row;
}

export async function readSettingsObject(db: Db, userId: string): Promise<SettingsObject> {
  const [settings, row] = await Promise.all([getSettings(db, userId), profileRow(db, userId)]);
  return toSettingsObject(settings, row);
}

/** The item settings' part of a change, in settings.logic.ts' names. */
const itemChange = (change: SettingsObjectChange) => ({
  defaultScopes: change.default_scopes,
  timezone: change.timezone,
  publicLocationPrecisionM: change.public_location_precision_m,
  privacyZones: change.privacy_zones,
});

/** What the body schema cannot say: a real IANA zone and the like, a display name that is not blank. */
function changeProblems(change: SettingsObjectChange): FieldError[] {
  const errors = settingsProblems(itemChange(change));
  if (change.display_name !== undefined && change.display_name.trim() === '') {
    errors.push(fieldError('body/display_name', 'must not be blank'));
  }
  return errors;
}

/**
 * POST /settings: a partial change in, the whole new settings out. Items and profile change
 * in one transaction, so a failure leaves neither half-applied.
 */
export async function changeSettingsObject(
  db: Db,
  userId: string,
  change: SettingsObjectChange,
): Promise<SettingsObject> {
  const errors = changeProblems(change);
  if (errors.length > 0) throw invalid('The settings are invalid', errors);
  return db.transaction().execute(async (trx) => {
    const row = await profileRow(trx, userId);
    const settings = await updateSettings(trx, userId, itemChange(change));
    const profile = {
      display_name: change.display_name?.trim() ?? row.display_name,
      bio: change.bio ?? row.bio,
    };
    if (change.display_name !== undefined || change.bio !== undefined) {
      await updateProfileRow(trx, userId, profile, nowMs());
    }
    return toSettingsObject(settings, profile);
  });
}
