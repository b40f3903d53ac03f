// A Waypost export read as untrusted input (docs/imports.md "Restoring an export"): the zip's
// directory is read once and bounded (entries, names), each file is read as a stream within
// limits of size and compression ratio (yauzl checks that an entry's data is no longer than
// its directory says), JSON Lines a line at a time with a bound on each line. Nothing is
// written to disk under an entry's name, and names that would escape a folder are refused
// anyway, so such an archive is reported rather than half-read.
import {
  entryName,
  entryRefusal,
  isDirectory,
  openEntry,
  openZip,
  type ZipEntry,
  type ZipFile,
} from '../../lib/zipfile.ts';
import { JSON_DEPTH_MAX, nestsTooDeep } from '../../lib/json-depth.ts';
import { messageOf } from '../../lib/message-of.ts';
import { RS } from '../format.ts';

export const RESTORE_LIMITS = {
  /** Entries in the archive: one per distinct media file, plus the ten others. */
  entries: 200_000,
  /** Uncompressed bytes of one JSON file (settings, services, groups, views). */
  jsonBytes: 16 * 1024 ** 2,
  /** Bytes of one line of posts.jsonl or media.jsonl, or one record of locations.geojsonseq. */
  lineBytes: 1024 ** 2,
  /** Characters of an entry name. */
  nameLength: 1024,
  /** Running time of one restore; past it the restore stops (what it stored stays). */
  runMs: 12 * 60 * 60 * 1000,
};

export interface Problem {
  where: string;
  message: string;
}

/** Why a name is no safe relative path, or null. */
export function unsafeName(name: string): string | null {
  if (name.length > RESTORE_LIMITS.nameLength) return 'is a name too long';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'has control characters in its name';
  if (name.includes('\\')) return 'has a backslash in its name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  if (name.split('/').some((part) => part === '..')) return 'has ".." in its path (path traversal)';
  return null;
}

export interface ExportArchive {
  zip: ZipFile;
  entries: Map<string, ZipEntry>;
  /** Problems of the directory itself: unsafe names, duplicates (the first is kept). */
  problems: Problem[];
}

/** Opens the archive and reads its directory; throws a message when it is no usable zip. */
export async function openExportArchive(path: string): Promise<ExportArchive> {
  const zip = await openZip(path).catch((error: unknown) => {
    throw new Error(`the archive is no readable zip (${messageOf(error)})`);
  });
  const entries = new Map<string, ZipEntry>();
  const problems: Problem[] = [];
  try {
    let count = 0;
    for await (const entry of zip.eachEntry()) {
      if (++count > RESTORE_LIMITS.entries) {
        throw new Error(`the archive holds more than ${RESTORE_LIMITS.entries} files`);
      }
      const name = entryName(entry);
      if (isDirectory(name)) continue;
      const unsafe = unsafeName(name);
      if (unsafe) problems.push({ where: name.slice(0, 200), message: `${unsafe}; not read` });
      else if (entries.has(name))
        problems.push({ where: name, message: 'is in the archive twice; the first was read' });
      else entries.set(name, entry);
    }
  } catch (error) {
    zip.close();
    throw new Error(messageOf(error), { cause: error });
  }
  return { zip, entries, problems };
}

/** An entry's bytes as a stream, after the checks of size and ratio; throws a message otherwise. */
export async function entryBytes(archive: ExportArchive, entry: ZipEntry, maxBytes: number) {
  const refusal = entryRefusal(entry);
  if (refusal) throw new Error(refusal);
  if (entry.uncompressedSize > maxBytes) throw new Error(`is larger than ${maxBytes} bytes; not read`);
  return openEntry(archive.zip, entry);
}

/** JSON.parse builds every level it reads before it returns: the depth is checked first. */
const TOO_DEEP = `import_too_deep: nests deeper than ${JSON_DEPTH_MAX} levels; not read`;

/** A whole small JSON file, parsed; throws a message saying what is wrong. */
export async function readJsonEntry(archive: ExportArchive, name: string): Promise<unknown> {
  const entry = archive.entries.get(name);
  if (!entry) throw new Error('is missing from the archive');
  const stream = await entryBytes(archive, entry, RESTORE_LIMITS.jsonBytes);
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  if (nestsTooDeep(text)) throw new Error(TOO_DEEP);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`is not valid JSON (${messageOf(error)})`, { cause: error });
  }
}

/** The record separator that starts each GeoJSON text of a sequence (RFC 8142). */
const LEADING_RS = new RegExp(`^${RS}`);

export type Line = { line: number; value: unknown } | { line: number; error: string };

/**
 * The records of a JSON Lines file (or of a GeoJSON text sequence, whose records start with
 * RS), one parsed value or one error per line; blank lines are passed over. `onBytes` is told
 * how many bytes were read, for progress.
 */
export async function* readLines(
  archive: ExportArchive,
  entry: ZipEntry,
  onBytes: (n: number) => void,
): AsyncGenerator<Line> {
  const stream = await entryBytes(archive, entry, Number.MAX_SAFE_INTEGER);
  let line = 0;
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let tooLong = false;
  function* finish(): Generator<Line> {
    line += 1;
    if (tooLong) {
      yield { line, error: `is longer than ${RESTORE_LIMITS.lineBytes} bytes; not read` };
    } else {
      const text = Buffer.concat(pending, pendingLength).toString('utf8').replace(LEADING_RS, '').replace(/\r$/, '');
      if (nestsTooDeep(text)) yield { line, error: TOO_DEEP };
      else if (text.trim() !== '') {
        try {
          yield { line, value: JSON.parse(text) as unknown };
        } catch (error) {
          yield { line, error: `is not valid JSON (${messageOf(error)})` };
        }
      }
    }
    pending = [];
    pendingLength = 0;
    tooLong = false;
  }
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      onBytes(chunk.length);
      let start = 0;
      for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
        if (!tooLong) pending.push(chunk.subarray(start, end));
        pendingLength += end - start;
        if (pendingLength > RESTORE_LIMITS.lineBytes) tooLong = true;
        yield* finish();
        start = end + 1;
      }
      if (start < chunk.length) {
        pendingLength += chunk.length - start;
        if (pendingLength > RESTORE_LIMITS.lineBytes) {
          tooLong = true;
          pending = [];
        } else pending.push(chunk.subarray(start));
      }
    }
    if (pendingLength > 0 || tooLong) yield* finish();
  } finally {
    stream.destroy();
  }
}

/** The `key: value` lines that open README.txt (format, version...). */
export function readmeFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+): (.*)$/.exec(line.replace(/\r$/, ''));
    if (!match) break;
    fields.set(match[1]!, match[2]!);
  }
  return fields;
}
