// What deleting an account takes from each feature besides the account's own rows, composed for
// src/app.ts (the account page) and src/cli/ (`waypost user delete`): deliveries and their jobs
// (services/), the history refresh jobs (locations/), the media files (media/), the sign-in count
// (account/). users/ imports none of them.
import { accountLimitKey, type SignInLimits } from './account/sign-in-limits.logic.ts';
import { mediaHashesOf } from './media/media.repo.ts';
import { removeUnusedFiles } from './media/media.removal.ts';
import type { Storage } from './media/media.storage.ts';
import { deleteDeliveries } from './services/deliveries.repo.ts';
import { forgetHistoryRefresh } from './locations/refresh.jobs.ts';
import type { AccountTraces } from './users/account-deletion.logic.ts';

export function accountTraces(storage: Storage, limits?: SignInLimits): AccountTraces {
  return {
    forget: async (trx, userId) => {
      await deleteDeliveries(trx, userId);
      await forgetHistoryRefresh(trx, userId);
      return mediaHashesOf(trx, userId);
    },
    // The account's own sign-in count names it too; the counts per account and address are
    // keyed so they cannot be found, and end with their window.
    limitKey: limits ? (username) => accountLimitKey(limits, username) : undefined,
    removeFiles: async (db, hashes) => {
      await removeUnusedFiles(db, storage, hashes);
    },
  };
}
