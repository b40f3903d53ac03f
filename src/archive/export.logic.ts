// The export (docs/data-ownership.md): one ZIP of everything a person owns, in open
// formats, written as it is read. Items come from the database in keyset batches and media
// files from disk one at a time, each only when the archive is ready for it, so memory stays
// flat whatever the size of the history. (The ZIP's central directory, written last, holds one
// small record per file: it grows with the number of distinct media files, never their size.)
//
// GET /export and `waypost export` both call `exportArchive` and pipe what it returns.
import { Readable } from 'node:stream';
import yazl from 'yazl';
import type { Db } from '../db/database.ts';
import type { Auth } from '../core/caller.ts';
import { toGeoJson } from '../locations/locations.formats.ts';
import { toLocation } from '../locations/locations.logic.ts';
import { toMedium } from '../media/media.logic.ts';
import { fileKey, type Storage } from '../media/media.storage.ts';
import { toPost } from '../posts/posts.logic.ts';
import { EXACT_PLACES } from '../privacy/places.ts';
import { deliveriesForPosts } from '../services/deliveries.logic.ts';
import { listGroups, listServices } from '../services/services.logic.ts';
import { readSettingsObject } from '../settings/settings.api.ts';
import { listViews } from '../views/views.logic.ts';
import { exportCounts, mediaFilesAfter, ownItemBatches } from './export.repo.ts';
import { exportReadme } from './export.readme.ts';
import { correctionRecords, placeRecords } from './export.places.ts';
import {
  archivePath,
  ENTRIES,
  RS,
  type ExportOwner,
  type Fields,
  type SettingsRecord,
  type ServiceRecord,
  type GroupRecord,
  type ViewRecord,
  type PostRecord,
  type MediumRecord,
  type LocationRecord,
} from './format.ts';

/**
 * Deflate level of the JSON files: 1, not zlib's default 6. Measured on 59 MB of location
 * records: level 6 took 2.5 times as long for an archive 3 % smaller.
 */
const TEXT_COMPRESSION = 1;

/** How many media files are queued in the archive at a time (each one a stat and a small record). */
const FILE_BATCH = 200;

export interface ExportOptions {
  baseUrl: string;
  /** Called as items and files go into the archive: done so far, of the total. */
  onProgress?: (done: number, total: number) => void;
  now?: Date;
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);

/** A lazily pulled byte stream of an async generator's chunks. */
const lazily = (chunks: () => AsyncGenerator<string>) => Readable.from(chunks(), { objectMode: false });

/**
 * The archive as a byte stream. The small files (settings, services, groups, views, places,
 * visit corrections) are read before it starts, so a failure there is an ordinary error; a
 * failure later (the database going away mid-way) destroys the stream, and the archive then
 * lacks its central directory, so no ZIP reader mistakes it for a whole one.
 */
export async function exportArchive(db: Db, storage: Storage, owner: ExportOwner, options: ExportOptions) {
  const now = options.now ?? new Date();
  // The person reading their own everything: the views' private ones included, and the places.
  const asOwner: Auth = {
    userId: owner.id,
    username: owner.username,
    clientId: '',
    grantId: '',
    permissions: new Set(['get_private_scope', 'get_views']),
    expiresAt: Infinity,
  };
  const [settings, services, groups, views, places, corrections] = await Promise.all([
    readSettingsObject(db, owner.id),
    listServices(db, options.baseUrl, owner.id),
    listGroups(db, owner.id),
    listViews(db, asOwner),
    placeRecords(db, asOwner),
    correctionRecords(db, owner.id),
  ]);
  // Counting a long history takes seconds: only for a progress line, never before a download's first bytes.
  const onProgress = options.onProgress;
  const counts = onProgress ? await exportCounts(db, owner.id) : undefined;
  const total = counts ? counts.posts + counts.media + counts.locations + counts.files : 0;
  let done = 0;
  const progress = (n: number) => {
    done += n;
    onProgress?.(done, total);
  };

  const zip = new yazl.ZipFile();
  // @types/yazl names the web ReadableStream; it is node's stream.PassThrough.
  const output = zip.outputStream as unknown as Readable;
  const fail = (error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error)));
  const entry = { mtime: now };
  const add = (name: string, stream: Readable) =>
    zip.addReadStreamLazy(name, { ...entry, compressionLevel: TEXT_COMPRESSION }, (callback) => {
      stream.on('error', fail);
      callback(null, stream);
    });

  zip.addBuffer(Buffer.from(exportReadme({ owner, baseUrl: options.baseUrl, now })), ENTRIES.readme, entry);
  zip.addBuffer(json(settings satisfies SettingsRecord), ENTRIES.settings, entry);
  // Service objects as the API shows them: every secret is replaced by a marker, never written.
  zip.addBuffer(json(services satisfies ServiceRecord[]), ENTRIES.services, entry);
  zip.addBuffer(json(groups satisfies GroupRecord[]), ENTRIES.groups, entry);
  zip.addBuffer(json(views satisfies ViewRecord[]), ENTRIES.views, entry);
  zip.addBuffer(json(places), ENTRIES.places, entry);
  zip.addBuffer(json(corrections), ENTRIES.visitCorrections, entry);

  add(
    ENTRIES.posts,
    lazily(async function* () {
      for await (const rows of ownItemBatches(db, 'posts', owner.id)) {
        const deliveries = await deliveriesForPosts(
          db,
          owner.id,
          rows.map((row) => row.id),
        );
        // The owner's whole post: exact locations (precision 0), every medium it names (a public
        // rendering names only the public ones), and the deliveries.
        yield rows
          .map((row) => {
            const post = toPost(row, owner.username, EXACT_PLACES, new Set(JSON.parse(row.media_ids) as string[]));
            return `${JSON.stringify({ ...post, deliveries: deliveries.get(row.id) ?? [] } satisfies PostRecord)}\n`;
          })
          .join('');
        progress(rows.length);
      }
    }),
  );
  add(
    ENTRIES.media,
    lazily(async function* () {
      for await (const rows of ownItemBatches(db, 'media', owner.id)) {
        yield rows
          .map((row) => {
            const medium = toMedium(row, owner.username, options.baseUrl, EXACT_PLACES, 'original');
            const record = {
              ...medium,
              file_name: row.file_name ?? null,
              file: archivePath(row.sha256, row.mime_type),
            };
            return `${JSON.stringify(record satisfies Fields<MediumRecord>)}\n`;
          })
          .join('');
        progress(rows.length);
      }
    }),
  );
  add(
    ENTRIES.locations,
    lazily(async function* () {
      for await (const rows of ownItemBatches(db, 'locations', owner.id)) {
        const points = rows.map((row) => toLocation(row, owner.username, EXACT_PLACES));
        yield toGeoJson(points)
          .features.map((feature) => `${RS}${JSON.stringify(feature satisfies Fields<LocationRecord>)}\n`)
          .join('');
        progress(rows.length);
      }
    }),
  );

  // The files, a batch at a time: the last entry of a batch, when its turn comes, queues the
  // next batch before it starts, and the archive is ended after the last file.
  const missing: string[] = [];
  const queueFiles = async (after: string | undefined): Promise<void> => {
    const files = await mediaFilesAfter(db, owner.id, after, FILE_BATCH);
    const present: { key: string; name: string; size: number; last: boolean }[] = [];
    for (const [index, file] of files.entries()) {
      const info = await storage.store.head(fileKey(file.sha256));
      const name = archivePath(file.sha256, file.mime_type);
      if (info) present.push({ key: fileKey(file.sha256), name, size: info.size, last: false });
      else missing.push(name);
      if (index === files.length - 1 && present.length > 0) present[present.length - 1]!.last = true;
    }
    if (files.length === FILE_BATCH && present.length === 0) return queueFiles(files.at(-1)!.sha256);
    const next = files.length === FILE_BATCH ? files.at(-1)!.sha256 : undefined;
    for (const file of present) {
      // Media are compressed already: stored as they are.
      zip.addReadStreamLazy(file.name, { ...entry, compress: false, size: file.size }, (callback) => {
        const open = () =>
          storage.store.read(file.key).then((stream) => {
            stream.on('error', fail);
            stream.on('end', () => progress(1));
            callback(null, stream);
          }, fail);
        if (file.last && next !== undefined) queueFiles(next).then(open, fail);
        else void open();
      });
    }
    if (next === undefined) finish();
  };
  const finish = () => {
    if (missing.length > 0) {
      const lines = missing.map((name) => `${name}\n`).join('');
      zip.addBuffer(Buffer.from(lines), ENTRIES.missingMedia, entry);
    }
    zip.end();
  };
  await queueFiles(undefined);
  return output;
}
