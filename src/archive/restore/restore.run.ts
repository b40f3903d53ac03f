// Restoring a Waypost export (docs/imports.md "Restoring an export"): the archive's objects come
// back into one account, in an order that lets references follow (services before the groups
// that name them, places before the visit corrections that name them, media before the posts
// that show them), in batches, each committed with the import's counters and a checkpoint like
// a location import. Each kind has its file beside this one; the import job
// (src/imports/imports.run.ts) runs this and saves what it reports.
//
// Ids: an object keeps its id when no one holds it on this server; when the person holds it
// already it is the same object, restored before, and is passed over (a duplicate); when
// another account holds it, the object gets an id derived from the account and the old id, so
// a second restore of the same archive finds it again (restore.ids.ts). References (a post's
// media, a group's services, a delivery's service, a correction's place, the source of a post
// or point) follow the new ids; a source whose service is not in the archive is cleared. A
// restarted run goes through the archive from the start: what is before the checkpoint only has
// its ids looked up (and, being the person's already, is stored again by no one), so counters
// and references stay exact.
import type { Database, Db } from '../../db/database.ts';
import type { ImportsTable } from '../../db/schema.ts';
import { messageOf } from '../../lib/message-of.ts';
import { ENTRIES, EXPORT_FORMAT, EXPORT_VERSION } from '../format.ts';
import { entryBytes, openExportArchive, readmeFields, RESTORE_LIMITS, type ExportArchive } from './restore.read.ts';
import { restoreLocations } from './restore.locations.ts';
import { restoreMedia } from './restore.media.ts';
import { restoreCorrections, restorePlaces } from './restore.places.ts';
import { emptyCounts, savedCounts, type Phase, type RestoreCounts, type RestoreDeps } from './restore.phase.ts';
import { restorePosts } from './restore.posts.ts';
import { restoreSettings } from './restore.settings.ts';
import { restoreGroups, restoreServices } from './restore.services.ts';
import { restoreViews } from './restore.views.ts';

/** The export format versions this server reads. */
const VERSIONS = new Set([String(EXPORT_VERSION)]);

/** The import a restore runs as: its file, its owner, and what earlier runs of it saved. */
export type RestoreImport = Pick<
  ImportsTable,
  | 'id'
  | 'user_id'
  | 'file_path'
  | 'filename'
  | 'checkpoint'
  | 'errors'
  | 'items'
  | 'points_seen'
  | 'points_stored'
  | 'duplicates'
  | 'skipped'
>;

/** What each committed batch saves on the import. */
export type RestoreProgress = Pick<
  ImportsTable,
  'points_seen' | 'points_stored' | 'duplicates' | 'skipped' | 'progress' | 'checkpoint' | 'errors'
> & { items: string };

export interface RestoreRunOptions {
  database: Database;
  now: () => number;
  deps: RestoreDeps;
  renewLease?: ((trx: Db) => Promise<boolean>) | undefined;
  /** Saves the progress on the import inside the batch's transaction; false when it runs no more (cancelled). */
  save: (trx: Db, progress: RestoreProgress, at: number) => Promise<boolean>;
  /** After each committed batch. */
  onBatch?: ((progress: RestoreProgress, at: number) => void | Promise<void>) | undefined;
  /** Records per committed batch (tests make it small). */
  batchRecords: number;
}

/** Thrown when the import stopped being ours mid-run; the batch in hand was rolled back. */
class Stopped extends Error {}

export async function runRestore(options: RestoreRunOptions, row: RestoreImport): Promise<'done' | 'cancelled'> {
  const { database, now, deps } = options;
  const { db } = database;
  const userId = row.user_id;
  const importId = row.id;
  const startedAt = now();
  const errors = JSON.parse(row.errors) as { where: string; message: string }[];
  const counts: RestoreCounts = row.items ? savedCounts(row.items) : emptyCounts();
  const points = {
    points_seen: row.points_seen,
    points_stored: row.points_stored,
    duplicates: row.duplicates,
    skipped: row.skipped,
  };
  let checkpoint = row.checkpoint;
  let position = 0;
  let bytesDone = 0;
  let bytesTotal = 1;
  let stoppedEarly = false;

  /** Moves past one record; true when it is past the checkpoint, so it counts. */
  const next = () => position++ >= row.checkpoint;
  const problem = (where: string, message: string) => {
    if (errors.length < 100) errors.push({ where, message });
  };

  /** Commits `work` with the counters and the checkpoint (`position` now), or stops when cancelled. */
  async function commit(work: (trx: Db) => Promise<void>): Promise<void> {
    const at = now();
    const progress = Math.min(1, bytesDone / bytesTotal);
    await db.transaction().execute(async (trx) => {
      if (options.renewLease && !(await options.renewLease(trx))) throw new Stopped();
      await work(trx);
      const saved = await options.save(
        trx,
        {
          ...points,
          progress,
          checkpoint: Math.max(checkpoint, position),
          errors: JSON.stringify(errors),
          items: JSON.stringify(counts),
        },
        at,
      );
      if (!saved) throw new Stopped();
    });
    checkpoint = Math.max(checkpoint, position);
    await options.onBatch?.(
      { ...points, progress, checkpoint, errors: JSON.stringify(errors), items: JSON.stringify(counts) },
      at,
    );
    if (now() - startedAt > RESTORE_LIMITS.runMs && !stoppedEarly) stoppedEarly = true;
  }

  let archive: ExportArchive;
  try {
    archive = await openExportArchive(row.file_path);
  } catch (error) {
    next();
    problem(row.filename, `${messageOf(error)}; nothing was restored`);
    await commit(async () => {});
    return 'done';
  }
  try {
    for (const entry of archive.entries.values()) bytesTotal += entry.uncompressedSize;
    for (const found of archive.problems) if (next()) problem(found.where, found.message);

    const version = await checkReadme(archive);
    if (version !== null) {
      if (next()) problem(ENTRIES.readme, `${version}; nothing was restored`);
      await commit(async () => {});
      return 'done';
    }

    const run: Phase = {
      db,
      archive,
      userId,
      importId,
      deps,
      counts,
      points,
      next,
      problem,
      commit,
      now,
      onBytes: (n) => (bytesDone += n),
    };
    const serviceIds = new Map<string, string>();
    const mediaIds = new Map<string, string>();
    await restoreSettings(run);
    await restoreServices(run, serviceIds);
    await restoreGroups(run, serviceIds);
    await restoreViews(run);
    const placeIds = new Map<string, string>();
    await restorePlaces(run, placeIds);
    await restoreCorrections(run, placeIds);
    if (!stoppedEarly) await restoreMedia(run, mediaIds, options.batchRecords);
    if (!stoppedEarly) await restorePosts(run, mediaIds, serviceIds, options.batchRecords);
    if (!stoppedEarly) await restoreLocations(run, serviceIds, options.batchRecords);
    if (stoppedEarly) {
      problem(row.filename, `the restore ran longer than ${RESTORE_LIMITS.runMs / 3_600_000} hours and was stopped`);
    }
    bytesDone = bytesTotal;
    await commit(async () => {});
    return 'done';
  } catch (error) {
    if (error instanceof Stopped) return 'cancelled';
    throw error;
  } finally {
    archive.zip.close();
  }
}

/** Null when README.txt names a format and version this server reads, else what is wrong. */
async function checkReadme(archive: ExportArchive): Promise<string | null> {
  const entry = archive.entries.get(ENTRIES.readme);
  if (!entry) return 'is missing: the archive is no Waypost export';
  let text: string;
  try {
    const stream = await entryBytes(archive, entry, RESTORE_LIMITS.jsonBytes);
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    text = Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    return `could not be read (${messageOf(error)})`;
  }
  const fields = readmeFields(text);
  if (fields.get('format') !== EXPORT_FORMAT) return `does not say "format: ${EXPORT_FORMAT}"`;
  const version = fields.get('version') ?? '';
  if (!VERSIONS.has(version)) {
    return `names export format version "${version.slice(0, 20)}"; this server reads version ${[...VERSIONS].join(', ')}`;
  }
  return null;
}
