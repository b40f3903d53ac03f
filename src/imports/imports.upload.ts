// Reads a multipart upload for POST /imports (src/http/multipart.ts): one file part named
// `file`, optional `format` and `scope` fields. The file is streamed to a temporary file in the
// data folder.
import type { FastifyRequest } from 'fastify';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomToken } from '../lib/crypto.ts';
import { cleanFileName } from '../lib/file-names.ts';
import { receiveOneFile } from '../http/multipart.ts';

const FIELDS = new Set(['format', 'scope']);

export interface ImportUpload {
  path: string;
  filename: string;
  fields: { format?: string; scope?: string };
}

export async function receiveImportUpload(request: FastifyRequest, dir: string, limit: number): Promise<ImportUpload> {
  const { file, fields } = await receiveOneFile(request, {
    limit,
    fieldNames: FIELDS,
    save: async (part) => {
      const path = join(dir, `${randomToken(12)}.part`);
      try {
        await pipeline(part.file, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
      return { path, filename: cleanFileName(part.filename) || 'upload' };
    },
  });
  return { path: file.path, filename: file.filename, fields };
}
