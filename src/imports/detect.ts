// Which format a file is, from its first bytes (docs/imports.md "Detection"): the first keys of
// a JSON document, the root element of an XML one, the header of a CSV file, the first line of
// an OwnTracks .rec file. What is none of them is described, for the 400 that refuses it.
import { open } from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import type { FormatName } from './readers/index.ts';

/** How much of a file detection reads. */
export const HEAD_BYTES = 64 * 1024;

export type Detection = { format: FormatName } | { format: null; seen: string };

function firstKey(json: string): string | undefined {
  return /^\{\s*"((?:[^"\\]|\\.)*)"\s*:/.exec(json)?.[1];
}

function detectJson(json: string): Detection {
  if (json.startsWith('{')) {
    const key = firstKey(json);
    if (key === 'locations') return { format: 'google-records' };
    return { format: null, seen: key === undefined ? 'a JSON object' : `a JSON object whose first field is "${key}"` };
  }
  return { format: null, seen: 'a JSON array' };
}

function rootElement(xml: string): string | undefined {
  // Past the declaration, comments, processing instructions and a doctype.
  const rest = xml.replace(/^(\s*(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>))*\s*/i, '');
  return /^<([A-Za-z_][\w.:-]*)/.exec(rest)?.[1];
}

function detectXml(xml: string): Detection {
  const root = rootElement(xml);
  const name = root?.slice(root.indexOf(':') + 1);
  if (name === 'gpx') return { format: 'gpx' };
  return { format: null, seen: root ? `XML whose root element is <${root}>` : 'XML' };
}

async function describeBinary(head: Uint8Array): Promise<string> {
  const type = await fileTypeFromBuffer(head).catch(() => undefined);
  return type ? `a ${type.ext.toUpperCase()} file (${type.mime})` : 'binary data';
}

/** The format of a file whose first bytes are `head` (up to HEAD_BYTES). */
export async function detectHead(head: Uint8Array): Promise<Detection> {
  if (head.length === 0) return { format: null, seen: 'an empty file' };
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const body = head.subarray(bom);
  if (body.includes(0)) return { format: null, seen: await describeBinary(head) };
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body).trimStart();
  if (text.startsWith('{') || text.startsWith('[')) return detectJson(text);
  if (text.startsWith('<')) return detectXml(text);
  const type = await fileTypeFromBuffer(head).catch(() => undefined);
  if (type) return { format: null, seen: `a ${type.ext.toUpperCase()} file (${type.mime})` };
  return { format: null, seen: 'text in none of the formats' };
}

/** The first HEAD_BYTES of a file. */
export async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The format of the file at `path`. */
export async function detectFile(path: string): Promise<Detection> {
  return detectHead(await readHead(path));
}
