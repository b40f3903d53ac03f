// The media that go out with a post (docs/api.md "Services and groups"): the public ones only,
// looked up when the delivery runs, as the public copies strangers get (without metadata).
import type { Db } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { fittedPublicImage, publicMediumFile, type MediaDeps } from '../media/media.logic.ts';
import { readObject } from '../media/media.storage.ts';
import { withoutMetadataType } from '../media/media.probe.ts';
import { publicMediaRows, type MediumRow } from '../media/media.repo.ts';
import { DeliveryError, type OutgoingMedium } from './connectors/connector.ts';

/** Where the public copies come from: the media work of the process, started when first needed. */
export type MediaFiles = () => Promise<MediaDeps>;

const KINDS = new Set(['image', 'video', 'audio']);

export async function outgoingMedia(
  db: Db,
  files: MediaFiles,
  baseUrl: string,
  userId: string,
  ids: readonly string[],
): Promise<OutgoingMedium[]> {
  const rows = new Map((await publicMediaRows(db, userId, ids)).map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = rows.get(id);
    return row ? [toOutgoing(row, files, baseUrl)] : [];
  });
}

function toOutgoing(row: MediumRow, files: MediaFiles, baseUrl: string): OutgoingMedium {
  const kind = (KINDS.has(row.kind) ? row.kind : 'other') as OutgoingMedium['kind'];
  const copy = async () => publicMediumFile(await files(), row).catch((error: unknown) => cannotSend(error, row));
  return {
    id: row.id,
    kind,
    mime_type: kind === 'image' ? withoutMetadataType(row.mime_type) : row.mime_type,
    url: `${baseUrl}/media/id/${row.id}/file`,
    caption: row.caption,
    width: row.width,
    height: row.height,
    read: async () => readObject((await files()).storage, (await copy()).key),
    fit: async (maxBytes, maxSide) => {
      if (kind !== 'image') return null;
      return fittedPublicImage(await files(), row, maxBytes, maxSide).catch((error: unknown) => cannotSend(error, row));
    },
  };
}

/** A copy that can never be made (its metadata cannot be removed) fails the delivery for good;
 * a busy server or a missing tool is worth another attempt. */
function cannotSend(error: unknown, row: MediumRow): never {
  if (error instanceof AppError && error.status === 404) {
    throw new DeliveryError(`medium ${row.id} cannot be sent: its metadata cannot be removed`, true);
  }
  throw error;
}
