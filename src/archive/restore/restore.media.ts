// media.jsonl and the files it names restored (docs/imports.md "Restoring an export"):
// each file checked as an upload is (its bytes are those its hash names, within the upload
// limit and the media limits, an image, video or audio file), placed by content hash, and its
// row made and written as an upload's is (src/media/media.repo.ts), 50 media a batch.
import { cleanFileName } from '../../lib/file-names.ts';
import { rm } from 'node:fs/promises';
import { messageOf } from '../../lib/message-of.ts';
import { secondsToMs } from '../../lib/time.ts';
import { LimitError } from '../../media/media.limits.ts';
import { probe, sniff } from '../../media/media.probe.ts';
import { insertMedia, mediumRow, type MediumRow } from '../../media/media.repo.ts';
import { CAPTION_MAX } from '../../media/media.schemas.ts';
import {
  placeShared,
  settleShared,
  fileKey,
  stored,
  thumbnailKey,
  withLocalCopy,
  writeFileAtomic,
  writeTemp,
} from '../../media/media.storage.ts';
import { getSettings } from '../../settings/settings.logic.ts';
import { ENTRIES, MEDIA_FOLDER, MediumRecord } from '../format.ts';
import { entryBytes } from './restore.read.ts';
import { resolveIds } from './restore.ids.ts';
import { checker, isNew, lineBatches, tally, validLines, type Phase } from './restore.phase.ts';
import { ownsContent } from './restore.repo.ts';

/** A medium's file could not be restored: the reason, for the import's errors. */
class FileRefused extends Error {}

/**
 * Stores a medium's file under its content hash, unless the same content is there already,
 * after the checks of an upload: the bytes are those the record's hash names (hashed as they
 * are read from the archive), within the upload limit, an image, video or audio file, within
 * the media limits. Returns what the bytes are (never the archive's word) and whether a
 * thumbnail exists. A file left out of the archive is taken only from the person's own media.
 */
async function restoreFile(run: Phase, medium: MediumRecord): Promise<RestoredFile> {
  const { storage } = run.deps;
  const final = fileKey(medium.sha256);
  if (!new RegExp(`^${MEDIA_FOLDER}/${medium.sha256}\\.[a-z0-9]{1,8}$`).test(medium.file)) {
    throw new FileRefused('its "file" is not media/<its sha256>.<extension>');
  }
  const entry = run.archive.entries.get(medium.file);
  if (!entry) {
    // Not in the archive (missing-media.txt): only a file the person has already may stand in.
    // Another account's file is never linked, nor is its existence told: a hash is public (a
    // medium's `sha256`), so naming one would hand out that account's original (docs/privacy.md).
    const absent = new FileRefused(`its file ${medium.file} is not in the archive`);
    if (!(await ownsContent(run.db, run.userId, medium.sha256))) throw absent;
    const present = await storage.store.head(final);
    if (!present) throw absent;
    const sniffed = await withLocalCopy(storage, final, sniff).catch(() => {
      throw absent;
    });
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
    await placeShared(storage, temp.path, final);
    if (thumbnail) await writeFileAtomic(storage, thumbnailKey(medium.sha256), thumbnail);
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

export async function restoreMedia(run: Phase, mediaIds: Map<string, string>, batchRecords: number): Promise<void> {
  const check = checker(MediumRecord);
  const size = Math.max(1, Math.min(50, batchRecords));
  for await (const lines of lineBatches(run, ENTRIES.media, size)) {
    const rows: MediumRow[] = [];
    const placed: { sha256: string; file: RestoredFile }[] = [];
    try {
      const valid = validLines(run, lines, {
        name: ENTRIES.media,
        kind: 'media',
        check,
        refuse: (medium) =>
          [...medium.caption].length > CAPTION_MAX ? `/caption is over ${CAPTION_MAX} characters` : undefined,
      });
      const resolved = await resolveIds(
        run.db,
        'media',
        run.userId,
        valid.map((v) => v.value.id),
      );
      for (const [n, { counting, where, value: medium }] of valid.entries()) {
        const target = resolved[n];
        if (target && target.id !== medium.id) mediaIds.set(medium.id, target.id);
        if (!isNew(run, 'media', target, { counting, where })) continue;
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
        const hasThumbnail = Boolean(file.thumbnail) || (await stored(run.deps.storage, thumbnailKey(medium.sha256)));
        rows.push(
          mediumRow({
            userId: run.userId,
            id: target.id,
            scope: medium.scope,
            timeMs: secondsToMs(medium.time),
            createdAtMs: secondsToMs(medium.created_at),
            file: { kind: file.kind, mimeType: file.mimeType, size: file.size, sha256: medium.sha256 },
            width: medium.width,
            height: medium.height,
            duration: medium.duration,
            location: medium.location,
            // An archive made before places has none: a location then came from the file.
            ...(medium.location_source ? { locationSource: medium.location_source } : {}),
            caption: medium.caption,
            hasThumbnail,
            fileName: cleanFileName(medium.file_name) || null,
          }),
        );
        placed.push({ sha256: medium.sha256, file });
        if (counting) tally(run, 'media', 'stored');
      }
      await run.commit((trx) => insertMedia(trx, rows));
      // The rows are committed: a deletion of the same content from now on sees them.
      for (const { sha256, file } of placed) {
        const { storage } = run.deps;
        if (file.temp) await settleShared(storage, file.temp, fileKey(sha256));
        if (file.thumbnail && !(await stored(storage, thumbnailKey(sha256)))) {
          await writeFileAtomic(storage, thumbnailKey(sha256), file.thumbnail);
        }
      }
    } finally {
      for (const { file } of placed) if (file.temp) await rm(file.temp, { force: true });
    }
  }
}
