import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { positionAt } from '../locations/position-at.ts';
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { AppError, badRequest, notFound } from '../core/errors.ts';
import { pageOf, toPageQuery, type Page } from '../items/items.logic.ts';
import { readItem, readsExactly } from '../items/access.ts';
import type { ListContext } from '../items/kinds.ts';
import { newId } from '../lib/ids.ts';
import { msToSeconds, nowMs } from '../lib/time.ts';
import { EXACT_PLACES, placesForReader, type PublicPlaces } from '../privacy/places.ts';
import { getSettings } from '../settings/settings.logic.ts';
import { findUserById } from '../users/users.repo.ts';
import { remuxWithoutMetadata, type MediaTools } from './media.ffmpeg.ts';
import { BusyError, type MediaJobs } from './image-workers.ts';
import { LimitError } from './media.limits.ts';
import { probe, sniff, withoutMetadataType } from './media.probe.ts';
import {
  insertMedium,
  mediumRow,
  publicCopyFacts,
  recordPublicCopy,
  selectMediaPage,
  type CopyFacts,
  type MediumRow,
} from './media.repo.ts';
import { fileUnavailable } from './media.storage.ts';
import { CAPTION_MAX, type Medium } from './media.schemas.ts';
import { removeUnusedFiles } from './media.removal.ts';
import {
  placeShared,
  settleShared,
  fileKey,
  hashObject,
  produceFileAtomic,
  publicCopyFailedKey,
  publicCopyKey,
  stored,
  thumbnailKey,
  withLocalCopy,
  writeFileAtomic,
  type Storage,
  type TempFile,
} from './media.storage.ts';
import type { CollectionParams, Scope } from '../items/items.schemas.ts';

/** What media work needs besides the database: where files live, the tools and the image jobs. */
export interface MediaDeps {
  storage: Storage;
  tools: MediaTools;
  jobs: MediaJobs;
  /** Public copies being made now, by content hash: racing readers wait for the same one. */
  making: Map<string, Promise<CopyResult>>;
}

export function mediaDeps(storage: Storage, tools: MediaTools, jobs: MediaJobs): MediaDeps {
  return { storage, tools, jobs, making: new Map() };
}

/**
 * Which file a medium object describes (docs/privacy.md "Media files"): the original, to its
 * owner; to everyone else the public copy they are served, whose hash and size are known once
 * it is made (by the original's hash; absent until then, and then shown as null). Never the
 * original's to a stranger: its hash would confirm a guessed file, and name it in a restore.
 */
export type FileView = 'original' | ReadonlyMap<string, CopyFacts>;

/** The view of `rows`' files for their owner (`byOwner`) or for anyone else. */
export async function fileViewOf(db: Db, rows: readonly MediumRow[], byOwner: boolean): Promise<FileView> {
  return byOwner
    ? 'original'
    : publicCopyFacts(
        db,
        rows.map((row) => row.sha256),
      );
}

export function toMedium(
  row: MediumRow,
  username: string,
  baseUrl: string,
  places: PublicPlaces,
  files: FileView,
): Medium {
  const exact = row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon };
  const url = `${baseUrl}/media/id/${row.id}/file`;
  const file = files === 'original' ? { sha256: row.sha256, size: row.size } : files.get(row.sha256);
  const location = exact && row.scope === 'public' ? places.serve(exact.lat, exact.lon) : exact;
  return {
    id: row.id,
    username,
    scope: row.scope,
    // The column holds what sniff() found or a restored record's kind: one of the four.
    kind: row.kind as Medium['kind'],
    mime_type: row.mime_type,
    size: file?.size ?? null,
    sha256: file?.sha256 ?? null,
    width: row.width,
    height: row.height,
    duration: row.duration,
    time: msToSeconds(row.time),
    location,
    location_source: location ? (row.location_source ?? 'exif') : null,
    caption: row.caption,
    url,
    thumbnail_url: row.has_thumbnail ? `${baseUrl}/media/id/${row.id}/thumbnail` : null,
    created_at: msToSeconds(row.created_at),
  };
}

export async function listMedia(
  db: Db,
  baseUrl: string,
  ctx: ListContext<CollectionParams>,
  kind?: Medium['kind'],
): Promise<Page<Medium>> {
  const result = await selectMediaPage(
    db,
    { owner: ctx.owner.id, scope: ctx.scope },
    toPageQuery(ctx.query, ctx.cursors),
    kind,
  );
  const places = await placesForReader(db, ctx.owner.id, ctx.exact, result.rows);
  const files = await fileViewOf(db, result.rows, ctx.byOwner);
  return pageOf(result, (row) => toMedium(row, ctx.owner.username, baseUrl, places, files), ctx.cursors);
}

export async function getMedium(db: Db, baseUrl: string, id: string, auth: Auth | undefined): Promise<Medium> {
  const row = await readItem(db, 'media', id, auth);
  const owner = await findUserById(db, row.user_id);
  const places = await placesForReader(db, row.user_id, readsExactly(row.user_id, auth), [row]);
  return toMedium(
    row,
    owner?.username ?? '',
    baseUrl,
    places,
    await fileViewOf(db, [row], auth?.userId === row.user_id),
  );
}

/** A stored file to send, after the object's access rules allowed it. */
export interface StoredFile {
  /** Its key in the store (src/storage/store.ts). */
  key: string;
  type: string;
  etag: string;
}

export async function mediumFile(
  db: Db,
  media: MediaDeps,
  id: string,
  auth: Auth | undefined,
  which: 'file' | 'thumbnail',
): Promise<StoredFile> {
  const { storage } = media;
  const row = await readItem(db, 'media', id, auth);
  if (which === 'file') {
    if (auth?.userId === row.user_id) {
      return { key: fileKey(row.sha256), type: row.mime_type, etag: `"${row.sha256}"` };
    }
    const copy = await publicCopy(media, row);
    return { ...copy, etag: `"${(await copyFactsOf(db, storage, copy.key, row.sha256)).sha256}"` };
  }
  if (!row.has_thumbnail) throw notFound('This medium has no thumbnail.');
  // The thumbnail's own hash: one derived from the original's would hand that out to strangers.
  const key = thumbnailKey(row.sha256);
  const thumbnail = await hashObject(storage.store, key).catch(() => {
    throw fileUnavailable();
  });
  return { key, type: 'image/webp', etag: `"${thumbnail.sha256}"` };
}

/** The facts of the public copy `key` of the original `sha256`: recorded, or read from the copy and recorded. */
async function copyFactsOf(db: Db, storage: Storage, key: string, sha256: string): Promise<CopyFacts> {
  const known = (await publicCopyFacts(db, [sha256])).get(sha256);
  if (known) return known;
  const facts = await hashObject(storage.store, key).catch(() => {
    throw fileUnavailable();
  });
  await recordPublicCopy(db, sha256, facts);
  return facts;
}

/**
 * A public medium's file as it goes out with a post (docs/api.md "Services and groups"): the
 * public copy, without metadata, made as for a stranger's read. Never the original.
 */
export function publicMediumFile(media: MediaDeps, row: MediumRow): Promise<PublicCopy> {
  return publicCopy(media, row);
}

/**
 * An image's public copy re-encoded as a JPEG of at most `maxBytes` (longest side at most
 * `maxSide`), for a target with a size limit; null when it cannot be made to fit.
 */
export async function fittedPublicImage(
  media: MediaDeps,
  row: MediumRow,
  maxBytes: number,
  maxSide: number,
): Promise<{ bytes: Uint8Array; width: number; height: number } | null> {
  const copy = await publicCopy(media, row);
  const target = join(media.storage.tmp, `fit-${newId()}`);
  try {
    return await withLocalCopy(media.storage, copy.key, async (path) => {
      const fitted = await media.jobs.run({ op: 'fit', path, target, maxBytes, maxSide });
      if (fitted === 'failed') return null;
      return { bytes: new Uint8Array(await readFile(target)), width: fitted.width, height: fitted.height };
    });
  } finally {
    await rm(target, { force: true });
  }
}

type CopyResult = 'ok' | 'failed' | 'missing';

/** A public copy in the store and its content type. */
export type PublicCopy = Omit<StoredFile, 'etag'>;

/**
 * A public medium as everyone but its owner gets it: without metadata, so a photo or a video
 * cannot give away where it was taken more exactly than the owner's public locations do, nor
 * when or with what. Made once, on the first request, and kept beside the original (written
 * atomically); requests that race share the one job. A copy that cannot be made is remembered
 * (a marker file beside the original), so reading the file again never re-runs the work, and
 * is a 404: never the original instead. A missing ffmpeg is a 503 and is not remembered.
 */
async function publicCopy(media: MediaDeps, row: MediumRow): Promise<PublicCopy> {
  const { storage } = media;
  const key = publicCopyKey(row.sha256);
  if (!(await stored(storage, key))) {
    let made: CopyResult;
    if (await stored(storage, publicCopyFailedKey(row.sha256))) made = 'failed';
    else {
      let making = media.making.get(row.sha256);
      if (!making) {
        making = makePublicCopy(media, row, key).finally(() => media.making.delete(row.sha256));
        media.making.set(row.sha256, making);
      }
      made = await making;
    }
    if (made === 'missing') throw toolUnavailable(row.kind);
    if (made !== 'ok') {
      throw notFound(`This ${row.kind} can only be shown to its owner: its metadata cannot be removed.`);
    }
  }
  const type = row.kind === 'image' ? withoutMetadataType(row.mime_type) : row.mime_type;
  return { key, type };
}

async function makePublicCopy(media: MediaDeps, row: MediumRow, key: string): Promise<CopyResult> {
  const { storage, tools, jobs } = media;
  const ffmpeg = tools.ffmpeg;
  if (row.kind !== 'image' && !ffmpeg) return 'missing';
  // The original as a file on this machine: itself in a folder store, a temporary copy of a bucket's object.
  const made: CopyResult = await withLocalCopy(storage, fileKey(row.sha256), (original) =>
    row.kind === 'image'
      ? // The image worker writes the copy; a job over a limit or its time is a failure like any other.
        produceFileAtomic(storage, key, (temp) =>
          jobs.run({ op: 'strip', path: original, mimeType: row.mime_type, target: temp }).catch((error: unknown) => {
            if (error instanceof BusyError) throw busy();
            return 'failed' as const;
          }),
        )
      : produceFileAtomic(storage, key, (temp) => remuxWithoutMetadata(ffmpeg!, original, row.mime_type, temp)),
  );
  if (made === 'failed') await writeFileAtomic(storage, publicCopyFailedKey(row.sha256), new Uint8Array(0));
  return made;
}

const toolUnavailable = (kind: string) =>
  new AppError(
    'media_tool_unavailable',
    `This ${kind} is public, but the server cannot remove its metadata right now (ffmpeg is not available), ` +
      'so only its owner can fetch it.',
  );

const busy = () =>
  new AppError('media_busy', 'The server is busy with other images; try again in a moment.', {
    headers: { 'retry-after': '10' },
  });

export interface Upload {
  file: TempFile;
  /** The name the file was sent under, if any. */
  fileName?: string | undefined;
  scope?: string | undefined;
  caption?: string | undefined;
}

function checkFields(upload: Upload): { scope: Scope | undefined; caption: string } {
  const scope = upload.scope;
  if (scope !== undefined && scope !== 'public' && scope !== 'private') {
    throw badRequest('scope must be "public" or "private".', [
      { path: 'body/scope', message: 'must be public or private' },
    ]);
  }
  const caption = (upload.caption ?? '').trim();
  if ([...caption].length > CAPTION_MAX) {
    throw badRequest(`The caption is over ${CAPTION_MAX} characters.`, [
      { path: 'body/caption', message: `must be at most ${CAPTION_MAX} characters` },
    ]);
  }
  return { scope, caption };
}

/** The facts and thumbnail of an upload; an image over a limit is a 422 naming the limit. */
async function probeUpload(media: MediaDeps, path: string, sniffed: Parameters<typeof probe>[1], timeZone: string) {
  try {
    return await probe(path, sniffed, timeZone, media.tools, media.jobs);
  } catch (error) {
    if (error instanceof LimitError) throw new AppError(error.code, `${error.message} The file is refused.`);
    if (error instanceof BusyError) throw busy();
    throw error;
  }
}

/**
 * Stores an uploaded file as a medium: sniff the type from the bytes (415 unless image, video or
 * audio), read EXIF or ask ffprobe, make the thumbnail (images within the limits, else 422),
 * move the file to its content-hash name, then commit the row. The temporary file is gone
 * afterwards, whatever happened.
 */
export async function createMedium(
  db: Db,
  media: MediaDeps,
  baseUrl: string,
  userId: string,
  upload: Upload,
): Promise<Medium> {
  try {
    const fields = checkFields(upload);
    const sniffed = await sniff(upload.file.path);
    if (!sniffed) {
      throw new AppError(
        'unsupported_media_type',
        'The file is not an image, video or audio file (judged by its bytes).',
      );
    }
    const settings = await getSettings(db, userId);
    const { facts, thumbnail: thumb } = await probeUpload(media, upload.file.path, sniffed, settings.timezone);
    const { storage } = media;
    const { sha256, size } = upload.file;
    // The file may be shared with other media, whose deletion may be removing it right now:
    // placed, then settled once the row is committed (media.storage.ts, "Files shared by content").
    const original = fileKey(sha256);
    await placeShared(storage, upload.file.path, original);
    let row: MediumRow;
    try {
      if (thumb) await writeFileAtomic(storage, thumbnailKey(sha256), thumb);
      row = await insertNewMedium();
    } catch (error) {
      // No row was committed: what was stored for it goes, unless another medium has the content.
      await removeUnusedFiles(db, storage, [sha256]).catch(() => undefined);
      throw error;
    }
    await settleShared(storage, upload.file.path, original);
    if (thumb && !(await stored(storage, thumbnailKey(sha256)))) {
      await writeFileAtomic(storage, thumbnailKey(sha256), thumb);
    }
    const owner = await findUserById(db, userId);
    return toMedium(row, owner?.username ?? '', baseUrl, EXACT_PLACES, 'original');

    async function insertNewMedium(): Promise<MediumRow> {
      const now = nowMs();
      // A file that says when but not where is placed by the person's history, if it knows.
      const placed = facts.location ?? (facts.takenMs === null ? null : await positionAt(db, userId, facts.takenMs));
      const row = mediumRow({
        userId,
        id: newId(),
        scope: fields.scope ?? settings.defaultScopes.media,
        timeMs: facts.takenMs ?? now,
        createdAtMs: now,
        file: { kind: facts.kind, mimeType: facts.mimeType, size, sha256 },
        width: facts.width,
        height: facts.height,
        duration: facts.durationS,
        location: placed,
        locationSource: facts.location ? 'exif' : 'history',
        caption: fields.caption,
        hasThumbnail: Boolean(thumb),
        fileName: upload.fileName ?? null,
      });
      await insertMedium(db, row);
      return row;
    }
  } finally {
    await rm(upload.file.path, { force: true });
  }
}
