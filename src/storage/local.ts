// The folder store: each key is a file under the data folder (`<data>/media/ab/<sha256>`), put
// in place by rename or hard link after an fsync, so a final name never holds half a file and a
// rename survives a power cut (docs/design.md "Storage").
import { createReadStream, mkdirSync } from 'node:fs';
import { copyFile, link, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '../lib/crypto.ts';
import { MissingObject, type BlobStore, type ByteRange, type ListedObject, type ObjectInfo } from './store.ts';

/** fsync through a descriptor of our own: a file's data, or a directory so a rename in it is kept. */
export async function syncPath(path: string, flags: 'r+' | 'r'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

export class LocalStore implements BlobStore {
  readonly kind = 'local';
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  localPath(key: string): string {
    if (key.split('/').some((part) => part === '..' || part === '')) throw new Error(`bad key ${key}`);
    return join(this.root, ...key.split('/'));
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const info = await stat(this.localPath(key)).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    return { size: info.size, modifiedMs: info.ctimeMs };
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.localPath(key);
    // Opened before it is returned, so a missing file is an error here and not in the stream.
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw isMissing(error) ? new MissingObject(key) : error;
    });
    return createReadStream(path, { fd: handle, ...(range ? { start: range.start, end: range.end } : {}) });
  }

  async upload(key: string, path: string): Promise<void> {
    const final = this.localPath(key);
    mkdirSync(dirname(final), { recursive: true });
    const temp = `${final}.${randomToken(6)}.part`;
    try {
      await copyFile(path, temp);
      await syncPath(temp, 'r+');
      await rename(temp, final);
      await syncPath(dirname(final), 'r');
    } finally {
      await rm(temp, { force: true });
    }
  }

  async place(key: string, path: string): Promise<'placed' | 'present'> {
    const final = this.localPath(key);
    mkdirSync(dirname(final), { recursive: true });
    try {
      await link(path, final);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'present';
      throw error;
    }
    await syncPath(dirname(final), 'r');
    return 'placed';
  }

  async adopt(key: string, path: string): Promise<void> {
    const final = this.localPath(key);
    mkdirSync(dirname(final), { recursive: true });
    if (await this.head(key)) {
      await rm(path, { force: true });
      return;
    }
    await rename(path, final);
    await syncPath(dirname(final), 'r');
  }

  async move(from: string, to: string): Promise<boolean> {
    const target = this.localPath(to);
    mkdirSync(dirname(target), { recursive: true });
    try {
      await rename(this.localPath(from), target);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    await syncPath(dirname(target), 'r');
    return true;
  }

  async remove(key: string): Promise<void> {
    await rm(this.localPath(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    // The folder the prefix names, walked; keys are relative to the root with '/' between parts.
    const slash = prefix.lastIndexOf('/');
    const start = slash < 0 ? this.root : this.localPath(prefix.slice(0, slash));
    yield* this.walk(start, prefix);
  }

  private async *walk(dir: string, prefix: string): AsyncIterable<ListedObject> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const key = relative(this.root, path).split(sep).join('/');
      if (entry.isDirectory()) {
        if (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`)) yield* this.walk(path, prefix);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        const info = await this.head(key);
        if (info) yield { key, ...info };
      }
    }
  }

  close(): void {}
}
