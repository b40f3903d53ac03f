// Reads a multipart upload (RFC 7578) for POST /imports: one file part named `file`, optional
// `format` and `scope` fields (before or after the file). The file is streamed to a temporary
// file in the data folder, never held in memory; a request that breaks off leaves nothing behind.
import type { FastifyRequest } from 'fastify';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { badRequest } from '../http/errors.ts';
import { randomToken } from '../lib/crypto.ts';
import { multipartError } from '../media/media.upload.ts';

const FIELDS = new Set(['format', 'scope']);

export interface ImportUpload {
  path: string;
  filename: string;
  fields: { format?: string; scope?: string };
}

/** A file name for display: no path, no control characters, at most 255 characters. */
function cleanName(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const printable = [...base].filter((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f).join('');
  return printable.slice(0, 255) || 'upload';
}

export async function receiveImportUpload(request: FastifyRequest, dir: string, limit: number): Promise<ImportUpload> {
  let path: string | undefined;
  let filename = '';
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || path) throw badRequest('Send one file, in the part named "file".');
        path = join(dir, `${randomToken(12)}.part`);
        filename = cleanName(part.filename);
        await pipeline(part.file, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
      } else {
        if (!FIELDS.has(part.fieldname)) {
          throw badRequest(`Unknown field "${part.fieldname}".`, [
            { path: `body/${part.fieldname}`, message: 'is not a known field' },
          ]);
        }
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    if (path) await rm(path, { force: true });
    throw multipartError(error, limit);
  }
  if (!path) throw badRequest('The upload has no file: send it in a part named "file".');
  return { path, filename, fields };
}
