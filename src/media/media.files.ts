// Sending a stored file: content type, a strong ETag (the content hash), conditional GET, and
// single byte ranges (RFC 9110 14), so video can be seeked. A request for several ranges gets
// the whole file: RFC 9110 14.2 lets a server ignore Range. Files are streamed through Waypost
// from either store, never redirected to the bucket (docs/design.md "Storage").
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../http/errors.ts';
import { problem } from '../core/errors.ts';
import { noneMatch } from '../items/conditional.ts';
import type { StoredFile } from './media.logic.ts';
import { MissingObject } from '../storage/store.ts';
import { fileUnavailable, type Storage } from './media.storage.ts';

/** A single satisfiable range, 'unsatisfiable', or undefined to send everything. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1] ?? '', match[2] ?? ''];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/** The object's bytes; one gone between its head and its read is the same operator's problem. */
const body = (storage: Storage, key: string, range?: { start: number; end: number }) =>
  storage.store.read(key, range).catch((error: unknown) => {
    throw error instanceof MissingObject ? fileUnavailable() : error;
  });

export async function sendStoredFile(request: FastifyRequest, reply: FastifyReply, storage: Storage, file: StoredFile) {
  const info = await storage.store.head(file.key);
  if (!info) throw fileUnavailable();
  const headers = request.headers;
  void reply
    .header('etag', file.etag)
    .header('accept-ranges', 'bytes')
    .header('cache-control', 'private, max-age=0, must-revalidate')
    .header('x-content-type-options', 'nosniff')
    .type(file.type);
  if (noneMatch(headers['if-none-match'], file.etag)) return reply.code(304).send();
  // If-Range with another validator: the file changed, send all of it.
  const ifRange = headers['if-range'];
  const range = ifRange === undefined || ifRange === file.etag ? parseRange(headers.range, info.size) : undefined;
  if (range === 'unsatisfiable') {
    const unsatisfiable = problem('range_not_satisfiable', `The file has ${info.size} bytes.`);
    return sendProblem(reply, unsatisfiable, { 'content-range': `bytes */${info.size}` });
  }
  if (range) {
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
      .header('content-length', range.end - range.start + 1)
      .send(await body(storage, file.key, range));
  }
  return reply.header('content-length', info.size).send(await body(storage, file.key));
}
