// Media objects no medium has (docs/housekeeping.md "Orphan media files"): an upload stores the
// file first and commits its row after (docs/design.md "Data model"), so a process killed
// between the two (a node lost mid-upload, a restore cut off) leaves an original, and maybe its
// thumbnail, that no row names. Found by listing the store's `media/` objects (the data folder
// or the bucket, so every node's leftovers are seen by whichever worker runs housekeeping);
// removed once every object of the content is older than the grace period, so an upload that
// is still between the two steps is never touched.
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { hashesInUse } from '../media/media.repo.ts';
import { removeUnusedFiles } from '../media/media.removal.ts';
import { mediaStorage, RETIRED_PREFIX } from '../media/media.storage.ts';

/** `media/ab/<sha256>` and the files beside it (`.webp`, `.public`, `.public-failed`). */
const CONTENT_KEY = /^media\/[0-9a-f]{2}\/([0-9a-f]{64})(?:\.webp|\.public|\.public-failed)?$/;
/** A folder store's half-written file (src/storage/local.ts upload): `<final>.<token>.part`. */
const PART_KEY = /^media\/[0-9a-f]{2}\/[0-9a-f]{64}[.a-z-]*\.[A-Za-z0-9_-]+\.part$/;

/** The objects of one content: how many, and the last write of any. */
interface Content {
  objects: number;
  newestMs: number;
}

/**
 * Removes the stored files of every content no medium has whose objects were all written
 * before `before`, and half-written files older than that. The removal follows the protocol of
 * a deletion (media.removal.ts), so an upload of the same content committing meanwhile keeps its
 * file. Returns how many objects went.
 */
export async function purgeOrphanMedia(db: Db, config: Pick<Config, 'dataDir' | 'storage'>, before: number) {
  const storage = mediaStorage(config);
  const contents = new Map<string, Content>();
  let removed = 0;
  for await (const object of storage.store.list('media/')) {
    // Temporary and retired files have purges of their own (temp-files.ts).
    if (object.key.startsWith('media/tmp/') || object.key.startsWith(RETIRED_PREFIX)) continue;
    const sha256 = CONTENT_KEY.exec(object.key)?.[1];
    if (sha256 !== undefined) {
      const seen = contents.get(sha256) ?? { objects: 0, newestMs: 0 };
      contents.set(sha256, { objects: seen.objects + 1, newestMs: Math.max(seen.newestMs, object.modifiedMs) });
    } else if (PART_KEY.test(object.key) && object.modifiedMs < before) {
      await storage.store.remove(object.key);
      removed += 1;
    }
  }
  const old = [...contents].filter(([, content]) => content.newestMs < before).map(([sha256]) => sha256);
  // A batch at a time, so a bucket of many files needs no query with as many parameters.
  for (let start = 0; start < old.length; start += 500) {
    const batch = old.slice(start, start + 500);
    const used = await hashesInUse(db, batch);
    const unused = batch.filter((sha256) => !used.has(sha256));
    for (const sha256 of await removeUnusedFiles(db, storage, unused)) removed += contents.get(sha256)!.objects;
  }
  return removed;
}
