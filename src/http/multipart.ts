// Reading a multipart upload (RFC 7578) of one file part named `file` and a few text fields
// (before or after the file): POST /media and POST /imports. The file goes where `save` puts
// it as it arrives; nothing is held in memory, and a request that breaks off leaves nothing
// behind.
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { rm } from 'node:fs/promises';
import { AppError, badRequest } from '../core/errors.ts';
import { NUL_REFUSED } from './nul.ts';

/** A multipart error as the problem the client gets (413 over `limit`, 415, 400). */
export function multipartError(error: unknown, limit: number): unknown {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new AppError('payload_too_large', `The file is larger than the upload limit of ${limit} bytes.`);
  }
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return new AppError('unsupported_media_type', 'Send the file as multipart/form-data.');
  }
  if (code === 'FST_FILES_LIMIT') return badRequest('Send one file per request.');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PROTO_VIOLATION') {
    return badRequest('The multipart body has too many or unexpected parts.');
  }
  if (error instanceof AppError) return error;
  // busboy's own errors (a body that breaks off, a malformed boundary) are the client's doing.
  if (error instanceof Error && !('statusCode' in error)) {
    return badRequest(`The multipart body is malformed or incomplete: ${error.message}.`);
  }
  return error;
}

/**
 * The one file (stored by `save`, which removes what it wrote should the part fail) and the
 * text fields, each of `fieldNames`. A second file, a file under another name, an unknown field
 * or no file at all is 400; on any failure the stored file is removed.
 */
export async function receiveOneFile<F extends { path: string }>(
  request: FastifyRequest,
  {
    limit,
    fieldNames,
    save,
  }: { limit: number; fieldNames: ReadonlySet<string>; save: (part: MultipartFile) => Promise<F> },
): Promise<{ file: F; fields: Record<string, string> }> {
  let file: F | undefined;
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      const text = part.type === 'file' ? part.filename : String(part.value);
      if (text.includes('\0')) {
        throw badRequest(NUL_REFUSED);
      }
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) throw badRequest('Send one file, in the part named "file".');
        file = await save(part);
      } else {
        if (!fieldNames.has(part.fieldname)) {
          throw badRequest(`Unknown field "${part.fieldname}".`, [
            { path: `body/${part.fieldname}`, message: 'is not a known field' },
          ]);
        }
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (error) {
    if (file) await rm(file.path, { force: true });
    throw multipartError(error, limit);
  }
  if (!file) throw badRequest('The upload has no file: send it in a part named "file".');
  return { file, fields };
}
