// Deleting a medium (docs/data-ownership.md): the row, its name in the posts that show it, and
// the file once no medium of any account has the same content.
import type { Auth } from '../core/caller.ts';
import type { Db } from '../db/database.ts';
import { deleteOwnItem } from '../items/writes.logic.ts';
import { postsNamingMedium, setPostMediaIds } from '../posts/posts.repo.ts';
import { forgetPublicCopy, hashInUse } from './media.repo.ts';
import {
  fileKey,
  finishRetired,
  publicCopyFailedKey,
  publicCopyKey,
  retireShared,
  thumbnailKey,
  type Storage,
} from './media.storage.ts';

/**
 * A stored file goes when no medium of any account has its content any more: the original,
 * its thumbnail and its public copy. Called after the rows' transaction committed. The
 * original is moved aside before the check, so an upload of the same content committing
 * meanwhile either is seen by the check or finds the file gone and puts its own copy in place
 * (src/media/media.storage.ts, "Files shared by content"). Returns the hashes whose files went.
 */
export async function removeUnusedFiles(db: Db, storage: Storage, hashes: Iterable<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const sha256 of hashes) {
    const original = fileKey(sha256);
    const aside = await retireShared(storage, original);
    const inUse = await hashInUse(db, sha256);
    await finishRetired(storage, aside, original, inUse);
    if (inUse) continue;
    for (const key of [thumbnailKey(sha256), publicCopyKey(sha256), publicCopyFailedKey(sha256)]) {
      await storage.store.remove(key);
    }
    await forgetPublicCopy(db, sha256);
    removed.push(sha256);
  }
  return removed;
}

/** DELETE /media/id/<id>: a post keeps its text when one of its media goes; it just no longer names it. */
export async function deleteMedium(db: Db, storage: Storage, id: string, auth: Auth): Promise<void> {
  const item = await deleteOwnItem(db, 'media', id, auth, async (trx) => {
    for (const post of await postsNamingMedium(trx, auth.userId, id)) {
      const ids = (JSON.parse(post.media_ids) as string[]).filter((other) => other !== id);
      await setPostMediaIds(trx, auth.userId, post.id, ids);
    }
  });
  if (item.sha256) await removeUnusedFiles(db, storage, [item.sha256]);
}
