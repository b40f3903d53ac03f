// Restoring a Waypost export (docs/imports.md "Restoring an export"): the archive's objects come
// back into one account, in an order that lets references follow (services before the groups
// that name them, media before the posts that show them), in batches, each committed with the
// import's counters and a checkpoint like a location import.
//
// Ids: an object keeps its id when no one holds it on this server; when the person holds it
// already it is the same object, restored before, and is passed over (a duplicate); when
// another account holds it, the object gets an id derived from the account and the old id, so
// a second restore of the same archive finds it again. References (a post's media, a group's
// services, a delivery's service, the source of a post or point) follow the new ids; a source
// whose service is not in the archive is cleared. A restarted run goes through the archive
// from the start: what is before the checkpoint only has its ids looked up (and, being the
// person's already, is stored again by no one), so counters and references stay exact.
import { createHash } from 'node:crypto';
import { access, rm, stat } from 'node:fs/promises';
import type { Database, Db } from '../../db/database.ts';
import type { LocationsTable, MediaTable, PostsTable } from '../../db/schema.ts';
import { checkedBox } from '../../lib/box.ts';
import { newId } from '../../lib/ids.ts';
import { secondsToMs } from '../../lib/time.ts';
import { LimitError } from '../../media/media.limits.ts';
import type { MediaDeps } from '../../media/media.logic.ts';
import { probe, sniff } from '../../media/media.probe.ts';
import {
  placeShared,
  settleShared,
  filePath,
  thumbnailPath,
  writeFileAtomic,
  writeTemp,
  type Storage,
} from '../../media/media.storage.ts';
import { connectors, type ServiceType } from '../../services/connectors/index.ts';
import { REDACTED } from '../../services/services.schemas.ts';
import { sealSecrets, type SecretKey } from '../../services/secrets.ts';
import { addMember, insertGroup, insertService, ownedServiceTypes } from '../../services/services.repo.ts';
import { changeSettingsObject } from '../../settings/settings.api.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import { countViewRows, insertViewRow, type StoredFilters } from '../../views/views.repo.ts';
import { VIEWS_PER_USER_MAX } from '../../views/views.schemas.ts';
import { CAPTION_MAX } from '../../media/media.schemas.ts';
import { TEXT_MAX } from '../../posts/posts.schemas.ts';
import { saveProgress, type ImportRow } from '../imports.repo.ts';
import { messageOf } from '../readers/reader.ts';
import {
  entryBytes,
  openExportArchive,
  readJsonEntry,
  readLines,
  readmeFields,
  RESTORE_FORMAT,
  RESTORE_LIMITS,
  type ExportArchive,
  type Line,
} from './archive.ts';
import {
  checker,
  GroupRecord,
  LocationRecord,
  MediumRecord,
  PostRecord,
  ServiceRecord,
  SettingsRecord,
  ViewRecord,
} from './records.ts';
import {
  idHolders,
  insertDeliveryRecords,
  insertLocations,
  ownIds,
  ownsContent,
  type RestoredTable,
} from './restore.repo.ts';

export { RESTORE_FORMAT };
/** The export format versions this server reads. */
const VERSIONS = new Set(['1']);

export const RESTORED_KINDS = ['settings', 'services', 'groups', 'views', 'media', 'posts'] as const;
export type RestoredKind = (typeof RESTORED_KINDS)[number];
export interface KindCounts {
  seen: number;
  stored: number;
  duplicates: number;
  skipped: number;
}
export type RestoreCounts = Record<RestoredKind, KindCounts>;

export function emptyCounts(): RestoreCounts {
  return Object.fromEntries(
    RESTORED_KINDS.map((kind) => [kind, { seen: 0, stored: 0, duplicates: 0, skipped: 0 }]),
  ) as RestoreCounts;
}

/** What a restore needs besides the database: where media go, and the tools that check them. */
export interface RestoreDeps {
  storage: Storage;
  /** The image workers and ffmpeg, made when the first file needs them. */
  media: () => Promise<MediaDeps>;
  /** The largest media file taken, as for `POST /media` (WAYPOST_UPLOAD_LIMIT). */
  uploadLimit: number;
  secretsKey: SecretKey;
}

export interface RestoreRunOptions {
  database: Database;
  now: () => number;
  deps: RestoreDeps;
  renewLease?: ((trx: Db) => Promise<boolean>) | undefined;
  onBatch?: ((row: ImportRow) => void | Promise<void>) | undefined;
  /** Records per committed batch (tests make it small). */
  batchRecords: number;
}

/** Thrown when the import stopped being ours mid-run; the batch in hand was rolled back. */
export class Stopped extends Error {}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The `n`th id an object gets when another account holds its own: the same for the same account and id. */
export function derivedId(userId: string, table: RestoredTable, id: string, n: number): string {
  const hash = createHash('sha256').update(`${userId}\n${table}\n${id}\n${n}`).digest();
  let tail = '';
  for (let i = 0; i < 16; i += 1) tail += CROCKFORD[hash[i]! & 31];
  // The time part of a ULID is kept, so the new id sorts where the old one did.
  return (ULID.test(id) ? id.slice(0, 10) : '0000000000') + tail;
}

const DERIVED_TRIES = 3;

type Resolved = { id: string; existing: boolean } | null;

/**
 * The id each object gets: its own, or a derived one when another account holds it; `existing`
 * when the person holds it already (restored before, or twice in this batch). Null when every
 * candidate is taken by others.
 */
async function resolveIds(db: Db, table: RestoredTable, userId: string, ids: readonly string[]): Promise<Resolved[]> {
  const holders = await idHolders(db, table, [...new Set(ids)]);
  const taken = ids.filter((id) => holders.has(id) && holders.get(id) !== userId);
  const derived = taken.flatMap((id) =>
    Array.from({ length: DERIVED_TRIES }, (_, n) => derivedId(userId, table, id, n)),
  );
  for (const [id, holder] of await idHolders(db, table, [...new Set(derived)])) holders.set(id, holder);
  const claimed = new Set<string>();
  return ids.map((id) => {
    const own = holders.get(id);
    const candidates =
      own !== undefined && own !== userId
        ? Array.from({ length: DERIVED_TRIES }, (_, n) => derivedId(userId, table, id, n))
        : [id];
    for (const candidate of candidates) {
      const holder = holders.get(candidate);
      if (holder === userId || claimed.has(candidate)) return { id: candidate, existing: true };
      if (holder === undefined) {
        claimed.add(candidate);
        return { id: candidate, existing: false };
      }
    }
    return null;
  });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A medium's file could not be restored: the reason, for the import's errors. */
class FileRefused extends Error {}

export async function runRestore(options: RestoreRunOptions, row: ImportRow): Promise<'done' | 'cancelled'> {
  const { database, now, deps } = options;
  const { db } = database;
  const userId = row.user_id;
  const importId = row.id;
  const startedAt = now();
  const errors = JSON.parse(row.errors) as { where: string; message: string }[];
  const counts: RestoreCounts = row.items ? (JSON.parse(row.items) as RestoreCounts) : emptyCounts();
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
      const saved = await saveProgress(
        trx,
        importId,
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
    await options.onBatch?.({
      ...row,
      ...points,
      progress,
      checkpoint,
      errors: JSON.stringify(errors),
      items: JSON.stringify(counts),
      status: 'running',
      updated_at: at,
    });
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
      if (next()) problem('README.txt', `${version}; nothing was restored`);
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

/** What every phase shares. */
interface Phase {
  db: Db;
  archive: ExportArchive;
  userId: string;
  importId: string;
  deps: RestoreDeps;
  counts: RestoreCounts;
  points: { points_seen: number; points_stored: number; duplicates: number; skipped: number };
  next: () => boolean;
  problem: (where: string, message: string) => void;
  commit: (work: (trx: Db) => Promise<void>) => Promise<void>;
  now: () => number;
  onBytes: (n: number) => void;
}

/** Null when README.txt names a format and version this server reads, else what is wrong. */
async function checkReadme(archive: ExportArchive): Promise<string | null> {
  const entry = archive.entries.get('README.txt');
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
  if (fields.get('format') !== RESTORE_FORMAT) return 'does not say "format: waypost-export"';
  const version = fields.get('version') ?? '';
  if (!VERSIONS.has(version)) {
    return `names export format version "${version.slice(0, 20)}"; this server reads version ${[...VERSIONS].join(', ')}`;
  }
  return null;
}

/** A JSON file that holds an array (services, groups, views): its items, or nothing with an error. */
async function jsonArray(run: Phase, name: string): Promise<unknown[]> {
  if (!run.archive.entries.has(name)) return [];
  try {
    const value = await readJsonEntry(run.archive, name);
    if (Array.isArray(value)) return value as unknown[];
    if (run.next()) run.problem(name, 'is not a JSON array; nothing in it was restored');
  } catch (error) {
    if (run.next()) run.problem(name, `${messageOf(error)}; nothing in it was restored`);
  }
  return [];
}

function tally(run: Phase, kind: RestoredKind, outcome: 'stored' | 'duplicates' | 'skipped'): void {
  run.counts[kind].seen += 1;
  run.counts[kind][outcome] += 1;
}

async function restoreSettings(run: Phase): Promise<void> {
  if (!run.archive.entries.has('settings.json')) return;
  let value: unknown;
  try {
    value = await readJsonEntry(run.archive, 'settings.json');
  } catch (error) {
    if (run.next()) {
      tally(run, 'settings', 'skipped');
      run.problem('settings.json', messageOf(error));
    }
    return;
  }
  const checked = checker(SettingsRecord)(value);
  const counting = run.next();
  if (!checked.ok) {
    if (counting) {
      tally(run, 'settings', 'skipped');
      run.problem('settings.json', checked.message);
    }
    return;
  }
  // The same settings again change nothing, so a repeated restore is harmless.
  try {
    await changeSettingsObject(run.db, run.userId, checked.value);
  } catch (error) {
    if (counting) {
      tally(run, 'settings', 'skipped');
      run.problem('settings.json', messageOf(error));
    }
    return;
  }
  if (counting) tally(run, 'settings', 'stored');
  await run.commit(async () => {});
}

async function restoreServices(run: Phase, serviceIds: Map<string, string>): Promise<void> {
  const items = await jsonArray(run, 'services.json');
  const check = checker(ServiceRecord);
  await run.commit(async (trx) => {
    for (const [index, item] of items.entries()) {
      const where = `services.json [${index}]`;
      const counting = run.next();
      const checked = check(item);
      if (!checked.ok) {
        if (counting) tally(run, 'services', 'skipped');
        if (counting) run.problem(where, checked.message);
        continue;
      }
      const service = checked.value;
      const [resolved] = await resolveIds(trx, 'services', run.userId, [service.id]);
      if (!resolved) {
        if (counting) tally(run, 'services', 'skipped');
        if (counting) run.problem(where, 'its id is taken; not restored');
        continue;
      }
      serviceIds.set(service.id, resolved.id);
      if (resolved.existing) {
        if (counting) tally(run, 'services', 'duplicates');
        continue;
      }
      const connector = connectors[service.type as ServiceType];
      // Secrets are not in the archive: the service comes back disabled, without them (and a
      // tracker without an ingest token), until the person enters them again.
      const config = Object.fromEntries(
        Object.entries(service.config).filter(
          ([key, value]) => value !== REDACTED && !connector.secretFields.includes(key),
        ),
      );
      const createdAt = secondsToMs(service.created_at);
      await insertService(trx, {
        id: resolved.id,
        user_id: run.userId,
        type: service.type,
        name: service.name,
        enabled: 0,
        config: JSON.stringify(config),
        secrets: sealSecrets(run.deps.secretsKey, resolved.id, {}),
        status: service.status,
        last_error: service.last_error,
        created_at: createdAt,
        updated_at: run.now(),
        ingest_token_hash: null,
      });
      if (counting) tally(run, 'services', 'stored');
    }
  });
}

async function restoreGroups(run: Phase, serviceIds: Map<string, string>): Promise<void> {
  const items = await jsonArray(run, 'groups.json');
  const check = checker(GroupRecord);
  await run.commit(async (trx) => {
    for (const [index, item] of items.entries()) {
      const where = `groups.json [${index}]`;
      const counting = run.next();
      const checked = check(item);
      if (!checked.ok) {
        if (counting) tally(run, 'groups', 'skipped');
        if (counting) run.problem(where, checked.message);
        continue;
      }
      const group = checked.value;
      const [resolved] = await resolveIds(trx, 'service_groups', run.userId, [group.id]);
      if (!resolved) {
        if (counting) tally(run, 'groups', 'skipped');
        if (counting) run.problem(where, 'its id is taken; not restored');
        continue;
      }
      if (resolved.existing) {
        if (counting) tally(run, 'groups', 'duplicates');
        continue;
      }
      const createdAt = secondsToMs(group.created_at);
      await insertGroup(trx, { id: resolved.id, user_id: run.userId, name: group.name, created_at: createdAt });
      const members = group.service_ids.map((id) => serviceIds.get(id) ?? id);
      const types = await ownedServiceTypes(trx, run.userId, members);
      for (const [n, serviceId] of members.entries()) {
        const type = types.get(serviceId);
        if (type === undefined || !connectors[type as ServiceType].publish) {
          if (counting)
            run.problem(where, `service ${group.service_ids[n]} is not in the archive; left out of the group`);
          continue;
        }
        // The order of members is the order they were added.
        await addMember(trx, run.userId, resolved.id, serviceId, createdAt + n);
      }
      if (counting) tally(run, 'groups', 'stored');
    }
  });
}

async function restoreViews(run: Phase): Promise<void> {
  const items = await jsonArray(run, 'views.json');
  const check = checker(ViewRecord);
  await run.commit(async (trx) => {
    let count = await countViewRows(trx, run.userId);
    for (const [index, item] of items.entries()) {
      const where = `views.json [${index}]`;
      const counting = run.next();
      const checked = check(item);
      const view = checked.ok ? checked.value : undefined;
      const { since_time: since, until_time: until, bbox } = view?.filters ?? {};
      const wrong = !checked.ok
        ? checked.message
        : since !== undefined && until !== undefined && since >= until
          ? '/filters/until_time must be after since_time'
          : bbox && !checkedBox(bbox)
            ? '/filters/bbox is no valid box'
            : view!.scope === 'public' && view!.filters.scope === 'private'
              ? '/filters/scope a public view only ever shows public items'
              : undefined;
      if (wrong !== undefined || !view) {
        if (counting) tally(run, 'views', 'skipped');
        if (counting) run.problem(where, wrong ?? 'is invalid');
        continue;
      }
      const [resolved] = await resolveIds(trx, 'views', run.userId, [view.id]);
      if (!resolved || (!resolved.existing && count >= VIEWS_PER_USER_MAX)) {
        if (counting) tally(run, 'views', 'skipped');
        if (counting) {
          run.problem(where, resolved ? `a person keeps at most ${VIEWS_PER_USER_MAX} views` : 'its id is taken');
        }
        continue;
      }
      if (resolved.existing) {
        if (counting) tally(run, 'views', 'duplicates');
        continue;
      }
      const filters: StoredFilters = {};
      if (since !== undefined) filters.sinceMs = secondsToMs(since);
      if (until !== undefined) filters.untilMs = secondsToMs(until);
      if (bbox) filters.bbox = bbox as StoredFilters['bbox'];
      if (view.filters.scope) filters.scope = view.filters.scope;
      if (view.filters.sources) filters.sources = view.filters.sources;
      if (view.filters.text !== undefined) filters.text = view.filters.text;
      await insertViewRow(trx, {
        user_id: run.userId,
        id: resolved.id,
        name: view.name.trim(),
        description: view.description,
        kinds: JSON.stringify(view.kinds),
        filters: JSON.stringify(filters),
        scope: view.scope,
        created_at: secondsToMs(view.created_at),
        updated_at: secondsToMs(view.updated_at),
      });
      count += 1;
      if (counting) tally(run, 'views', 'stored');
    }
  });
}

/** Records of a JSON Lines file, `size` at a time, each with its line number or its error. */
async function* lineBatches(run: Phase, name: string, size: number): AsyncGenerator<Line[]> {
  const entry = run.archive.entries.get(name);
  if (!entry) return;
  let batch: Line[] = [];
  try {
    for await (const line of readLines(run.archive, entry, (n) => run.onBytes(n))) {
      batch.push(line);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    if (batch.length > 0) yield batch;
    batch = [];
    if (run.next())
      run.problem(name, `could not be read to its end (${messageOf(error)}); what came before was restored`);
  }
  if (batch.length > 0) yield batch;
}

/**
 * Stores a medium's file under its content hash, unless the same content is there already,
 * after the checks of an upload: the bytes are those the record's hash names (hashed as they
 * are read from the archive), within the upload limit, an image, video or audio file, within
 * the media limits. Returns what the bytes are (never the archive's word) and whether a
 * thumbnail exists. A file left out of the archive is taken only from the person's own media.
 */
async function restoreFile(run: Phase, medium: MediumRecord): Promise<RestoredFile> {
  const { storage } = run.deps;
  const final = filePath(storage, medium.sha256);
  if (!new RegExp(`^media/${medium.sha256}\\.[a-z0-9]{1,8}$`).test(medium.file)) {
    throw new FileRefused('its "file" is not media/<its sha256>.<extension>');
  }
  const entry = run.archive.entries.get(medium.file);
  if (!entry) {
    // Not in the archive (missing-media.txt): only a file the person has already may stand in.
    // Another account's file is never linked, nor is its existence told: a hash is public (a
    // medium's `sha256`), so naming one would hand out that account's original (docs/privacy.md).
    const absent = new FileRefused(`its file ${medium.file} is not in the archive`);
    if (!(await ownsContent(run.db, run.userId, medium.sha256))) throw absent;
    const present = await stat(final).catch(() => undefined);
    if (!present) throw absent;
    const sniffed = await sniff(final);
    if (!sniffed) throw new FileRefused('its file on this server is no image, video or audio');
    return { ...sniffed, size: present.size, thumbnail: undefined, temp: undefined };
  }
  if (entry.uncompressedSize > run.deps.uploadLimit) {
    throw new FileRefused(`its file is larger than the upload limit of ${run.deps.uploadLimit} bytes`);
  }
  const stream = await entryBytes(run.archive, entry, run.deps.uploadLimit).catch((error: unknown) => {
    throw new FileRefused(`its file ${messageOf(error)}`);
  });
  const temp = await writeTemp(storage, stream).catch((error: unknown) => {
    throw new FileRefused(`its file could not be read (${messageOf(error)})`);
  });
  try {
    run.onBytes(entry.uncompressedSize);
    if (temp.sha256 !== medium.sha256) throw new FileRefused('its file does not have the sha256 it names');
    const sniffed = await sniff(temp.path);
    if (!sniffed) throw new FileRefused('its file is no image, video or audio file (judged by its bytes)');
    const media = await run.deps.media();
    const settings = await getSettings(run.db, run.userId);
    let thumbnail: Buffer | undefined;
    try {
      ({ thumbnail } = await probe(temp.path, sniffed, settings.timezone, media.tools, media.jobs));
    } catch (error) {
      if (error instanceof LimitError) throw new FileRefused(`its file is refused: ${error.message}`);
      throw error; // BusyError or worse: the job is tried again later
    }
    // Shared by content: placed now, settled once the row is committed (media.storage.ts).
    await placeShared(temp.path, final);
    if (thumbnail) await writeFileAtomic(storage, thumbnailPath(storage, medium.sha256), thumbnail);
    return { ...sniffed, size: temp.size, thumbnail, temp: temp.path };
  } catch (error) {
    await rm(temp.path, { force: true });
    throw error;
  }
}

/** A medium's file, checked and placed; `temp` is the upload's own copy until its row is committed. */
interface RestoredFile {
  kind: string;
  mimeType: string;
  size: number;
  thumbnail: Buffer | undefined;
  temp: string | undefined;
}

async function restoreMedia(run: Phase, mediaIds: Map<string, string>, batchRecords: number): Promise<void> {
  const check = checker(MediumRecord);
  const size = Math.max(1, Math.min(50, batchRecords));
  for await (const lines of lineBatches(run, 'media.jsonl', size)) {
    const rows: MediaTable[] = [];
    const placed: { sha256: string; file: RestoredFile }[] = [];
    try {
      const valid: { counting: boolean; where: string; medium: MediumRecord }[] = [];
      for (const line of lines) {
        const where = `media.jsonl line ${line.line}`;
        const counting = run.next();
        const checked = 'error' in line ? { ok: false as const, message: line.error } : check(line.value);
        if (!checked.ok || [...checked.value.caption].length > CAPTION_MAX) {
          if (counting) tally(run, 'media', 'skipped');
          if (counting) run.problem(where, checked.ok ? `/caption is over ${CAPTION_MAX} characters` : checked.message);
        } else valid.push({ counting, where, medium: checked.value });
      }
      const resolved = await resolveIds(
        run.db,
        'media',
        run.userId,
        valid.map((v) => v.medium.id),
      );
      for (const [n, { counting, where, medium }] of valid.entries()) {
        const target = resolved[n];
        if (!target) {
          if (counting) tally(run, 'media', 'skipped');
          if (counting) run.problem(where, 'its id is taken');
          continue;
        }
        if (target.id !== medium.id) mediaIds.set(medium.id, target.id);
        if (target.existing) {
          if (counting) tally(run, 'media', 'duplicates');
          continue;
        }
        let file;
        try {
          file = await restoreFile(run, medium);
        } catch (error) {
          if (!(error instanceof FileRefused)) throw error;
          mediaIds.delete(medium.id);
          if (counting) tally(run, 'media', 'skipped');
          if (counting) run.problem(where, error.message);
          continue;
        }
        rows.push({
          user_id: run.userId,
          id: target.id,
          scope: medium.scope,
          time: secondsToMs(medium.time),
          created_at: secondsToMs(medium.created_at),
          kind: file.kind,
          mime_type: file.mimeType,
          size: file.size,
          sha256: medium.sha256,
          width: medium.width,
          height: medium.height,
          duration: medium.duration,
          lat: medium.location?.lat ?? null,
          lon: medium.location?.lon ?? null,
          caption: medium.caption,
          has_thumbnail: file.thumbnail || (await exists(thumbnailPath(run.deps.storage, medium.sha256))) ? 1 : 0,
          source: null,
        });
        placed.push({ sha256: medium.sha256, file });
        if (counting) tally(run, 'media', 'stored');
      }
      await run.commit(async (trx) => {
        if (rows.length > 0) await trx.insertInto('media').values(rows).execute();
      });
      // The rows are committed: a deletion of the same content from now on sees them.
      for (const { sha256, file } of placed) {
        const { storage } = run.deps;
        if (file.temp) await settleShared(file.temp, filePath(storage, sha256));
        if (file.thumbnail && !(await exists(thumbnailPath(storage, sha256)))) {
          await writeFileAtomic(storage, thumbnailPath(storage, sha256), file.thumbnail);
        }
      }
    } finally {
      for (const { file } of placed) if (file.temp) await rm(file.temp, { force: true });
    }
  }
}

/**
 * A restored post's or point's `source`: the service it came from as this restore brought it
 * back (under its new id), or null when the archive holds no such service. The archive's word
 * would otherwise name any service id on this server, another account's private tracker
 * included, and a public point would show it.
 */
function restoredSource(serviceIds: ReadonlyMap<string, string>, source: string | null | undefined): string | null {
  return source == null ? null : (serviceIds.get(source) ?? null);
}

async function restorePosts(
  run: Phase,
  mediaIds: Map<string, string>,
  serviceIds: Map<string, string>,
  batchRecords: number,
): Promise<void> {
  const check = checker(PostRecord);
  for await (const lines of lineBatches(run, 'posts.jsonl', batchRecords)) {
    await run.commit(async (trx) => {
      const valid: { counting: boolean; where: string; post: PostRecord }[] = [];
      for (const line of lines) {
        const where = `posts.jsonl line ${line.line}`;
        const counting = run.next();
        const checked = 'error' in line ? { ok: false as const, message: line.error } : check(line.value);
        if (!checked.ok || [...checked.value.text].length > TEXT_MAX) {
          if (counting) tally(run, 'posts', 'skipped');
          if (counting) run.problem(where, checked.ok ? `/text is over ${TEXT_MAX} characters` : checked.message);
        } else valid.push({ counting, where, post: checked.value });
      }
      const resolved = await resolveIds(
        trx,
        'posts',
        run.userId,
        valid.map((v) => v.post.id),
      );
      const named = valid.flatMap((v) => v.post.media_ids.map((id) => mediaIds.get(id) ?? id));
      const ownMedia = await ownIds(trx, 'media', run.userId, [...new Set(named)]);
      const namedServices = valid.flatMap((v) =>
        (v.post.deliveries ?? []).map((d) => serviceIds.get(d.service_id) ?? d.service_id),
      );
      const ownServices = await ownIds(trx, 'services', run.userId, [...new Set(namedServices)]);
      const rows: PostsTable[] = [];
      const deliveries = [];
      for (const [n, { counting, where, post }] of valid.entries()) {
        const target = resolved[n];
        if (!target) {
          if (counting) tally(run, 'posts', 'skipped');
          if (counting) run.problem(where, 'its id is taken');
          continue;
        }
        if (target.existing) {
          if (counting) tally(run, 'posts', 'duplicates');
          continue;
        }
        const media = post.media_ids.map((id) => mediaIds.get(id) ?? id).filter((id) => ownMedia.has(id));
        if (counting && media.length < post.media_ids.length) {
          run.problem(where, `${post.media_ids.length - media.length} of its media were not restored; left out`);
        }
        rows.push({
          user_id: run.userId,
          id: target.id,
          scope: post.scope,
          time: secondsToMs(post.time),
          created_at: secondsToMs(post.created_at),
          text: post.text,
          media_ids: JSON.stringify(media),
          lat: post.location?.lat ?? null,
          lon: post.location?.lon ?? null,
          source: restoredSource(serviceIds, post.source),
        });
        for (const delivery of post.deliveries ?? []) {
          const serviceId = serviceIds.get(delivery.service_id) ?? delivery.service_id;
          if (!ownServices.has(serviceId)) continue;
          // Nothing is sent again: a delivery that was still pending is recorded as cancelled.
          const pending = delivery.status === 'pending';
          const updatedAt = secondsToMs(delivery.updated_at);
          deliveries.push({
            id: newId(),
            user_id: run.userId,
            post_id: target.id,
            service_id: serviceId,
            status: pending ? ('cancelled' as const) : delivery.status,
            attempts: delivery.attempts,
            remote_url: delivery.remote_url,
            remote_id: delivery.remote_id ?? null,
            last_error: pending ? 'not sent: the post was restored from an export' : delivery.last_error,
            created_at: updatedAt,
            updated_at: updatedAt,
          });
        }
        if (counting) tally(run, 'posts', 'stored');
      }
      if (rows.length > 0) await trx.insertInto('posts').values(rows).execute();
      await insertDeliveryRecords(trx, deliveries);
    });
  }
}

async function restoreLocations(run: Phase, serviceIds: Map<string, string>, batchRecords: number): Promise<void> {
  const check = checker(LocationRecord);
  const { points } = run;
  for await (const lines of lineBatches(run, 'locations.geojsonseq', batchRecords)) {
    await run.commit(async (trx) => {
      const valid: { counting: boolean; point: LocationRecord }[] = [];
      for (const line of lines) {
        const counting = run.next();
        const checked = 'error' in line ? { ok: false as const, message: line.error } : check(line.value);
        if (!checked.ok) {
          if (counting) {
            points.points_seen += 1;
            points.skipped += 1;
            run.problem(`locations.geojsonseq record ${line.line}`, checked.message);
          }
        } else valid.push({ counting, point: checked.value });
      }
      const resolved = await resolveIds(
        trx,
        'locations',
        run.userId,
        valid.map((v) => v.point.properties.id),
      );
      const rows: LocationsTable[] = [];
      const at = run.now();
      let counted = 0;
      let duplicates = 0;
      for (const [n, { counting, point }] of valid.entries()) {
        const target = resolved[n];
        if (counting) points.points_seen += 1;
        if (!target || target.existing) {
          if (counting) duplicates += 1;
          continue;
        }
        const [lon, lat, alt] = point.geometry.coordinates;
        const p = point.properties;
        rows.push({
          user_id: run.userId,
          id: target.id,
          scope: p.scope,
          time: secondsToMs(p.time),
          created_at: p.created_at === undefined ? at : secondsToMs(p.created_at),
          lat,
          lon,
          alt: alt ?? p.alt ?? null,
          accuracy: p.accuracy ?? null,
          speed: p.speed ?? null,
          heading: p.heading ?? null,
          source: restoredSource(serviceIds, p.source),
          import_id: run.importId,
        });
        if (counting) counted += 1;
      }
      // Every row here counts unless it is before the checkpoint, which has no new rows.
      const inserted = await insertLocations(trx, rows);
      points.points_stored += Math.min(inserted, counted);
      points.duplicates += duplicates + (counted - Math.min(inserted, counted));
    });
  }
}
