// Zip archives (Google Takeout, KMZ) read with yauzl from the file on disk, an entry at a time,
// within bounds that keep a zip bomb from filling memory, disk or time (docs/imports.md
// "Limits"): the number of entries, each entry's size, and its compression ratio. yauzl checks
// that an entry's data is no longer than its directory says, so the declared sizes hold.
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export const ZIP_LIMITS = {
  /** Entries in one archive. */
  entries: 10_000,
  /** Uncompressed bytes of one entry. */
  entryBytes: 16 * 1024 ** 3,
  /** Uncompressed bytes over compressed ones, for an entry of more than `ratioFrom` bytes. */
  ratio: 200,
  ratioFrom: 1024 ** 2,
};

export type ZipFile = yauzl.ZipFile;
export type ZipEntry = yauzl.Entry;

export function isZip(head: Uint8Array): boolean {
  return (
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    (head[2] === 0x03 || head[2] === 0x05) &&
    (head[3] === 0x04 || head[3] === 0x06)
  );
}

export function openZip(path: string): Promise<ZipFile> {
  // Names are not validated as paths (nothing is written to disk), so an odd one is no error.
  return yauzl.openPromise(path, {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: false,
    validateEntrySizes: true,
  });
}

export function entryName(entry: ZipEntry): string {
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
}

/** Why an entry is not read, or null when it may be. */
export function entryRefusal(entry: ZipEntry): string | null {
  if (entry.isEncrypted()) return 'is encrypted; not read';
  if (entry.uncompressedSize > ZIP_LIMITS.entryBytes) return `is larger than ${ZIP_LIMITS.entryBytes} bytes; not read`;
  const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
  if (entry.uncompressedSize > ZIP_LIMITS.ratioFrom && ratio > ZIP_LIMITS.ratio) {
    return `is compressed more than ${ZIP_LIMITS.ratio} to 1 (a zip bomb?); not read`;
  }
  return null;
}

export function openEntry(zip: ZipFile, entry: ZipEntry): Promise<Readable> {
  return zip.openReadStreamPromise(entry);
}

/** Up to `bytes` of an entry's start. */
export async function entryHead(zip: ZipFile, entry: ZipEntry, bytes: number): Promise<Buffer> {
  const stream = await openEntry(zip, entry);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}

export const isDirectory = (name: string) => name.endsWith('/');
/** Files a Mac's archiver adds beside each file. */
export const isMacMetadata = (name: string) => name.startsWith('__MACOSX/') || /(^|\/)\._/.test(name);
