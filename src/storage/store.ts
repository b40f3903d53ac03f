// Where Waypost keeps its files (docs/design.md "Storage"): media originals, their thumbnails
// and public copies, and uploaded import files, by key (`media/ab/<sha256>`, `imports/<id>`).
// Two kinds: a folder on this machine (the default) and an S3-compatible bucket, which every
// node of a several-node setup shares. Work on a file (probing, thumbnails, stripping metadata,
// reading an import) happens on a local temporary copy; the store only keeps finished files.
import type { Readable } from 'node:stream';

export interface ObjectInfo {
  size: number;
  /** When the object was last written (a local file's change time: a rename sets it). */
  modifiedMs: number;
}

export interface ListedObject extends ObjectInfo {
  key: string;
}

/** An inclusive byte range, as in a Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Where the object of `key` is on this machine, for a folder store; undefined for a bucket. */
  localPath(key: string): string | undefined;
  head(key: string): Promise<ObjectInfo | undefined>;
  /** The object's bytes, or a range of them; a missing object rejects with MissingObject. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Writes the local file at `path` under `key`, replacing what is there; the file stays. Streams. */
  upload(key: string, path: string): Promise<void>;
  /**
   * Gives the local file at `path` the name `key` when nothing has it, while the file stays
   * where it is (a hard link in a folder, an upload to a bucket).
   */
  place(key: string, path: string): Promise<'placed' | 'present'>;
  /** Moves the local file at `path` to `key`, or removes it when `key` already has an object. */
  adopt(key: string, path: string): Promise<void>;
  /** Renames an object; false when there was none. */
  move(from: string, to: string): Promise<boolean>;
  remove(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`. */
  list(prefix: string): AsyncIterable<ListedObject>;
  close(): void;
}

/** The object asked for is not in the store. */
export class MissingObject extends Error {
  constructor(key: string) {
    super(`no stored object ${key}`);
    this.name = 'MissingObject';
  }
}
