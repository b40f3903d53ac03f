// Reads a multipart upload for POST /media (src/http/multipart.ts): one file part named `file`,
// optional `scope` and `caption` fields. The file goes straight to a temporary file; its name is kept.
import type { FastifyRequest } from 'fastify';
import { cleanFileName } from '../lib/file-names.ts';
import { receiveOneFile } from '../http/multipart.ts';
import type { Upload } from './media.logic.ts';
import { writeTemp, type Storage } from './media.storage.ts';

const FIELDS = new Set(['scope', 'caption']);

export async function receiveUpload(request: FastifyRequest, storage: Storage, limit: number): Promise<Upload> {
  const { file, fields } = await receiveOneFile(request, {
    limit,
    fieldNames: FIELDS,
    save: async (part) => ({ ...(await writeTemp(storage, part.file)), name: cleanFileName(part.filename) }),
  });
  const { name, ...temp } = file;
  return { file: temp, fileName: name || undefined, scope: fields.scope, caption: fields.caption };
}
