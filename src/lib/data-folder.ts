// The data folder holds the database, the secret key, originals and uploads in progress: only
// the account Waypost runs as may read it. Folders are 0700 and files 0600 (README "Security").
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const FOLDER_MODE = 0o700;
export const FILE_MODE = 0o600;

/**
 * From now on, whatever this process creates (SQLite's database, its -wal and -shm, media,
 * thumbnails, import uploads, exports) is no more than 0600 for files and 0700 for folders,
 * whatever mode the code or a library asks for.
 */
export function restrictNewFiles(): void {
  process.umask(0o077);
}

export interface Loosened {
  path: string;
  /** The mode it had, as octal digits. */
  was: string;
  /** Set when it could not be changed (not ours). */
  error?: string;
}

/**
 * Every folder and file under `dir` (and `dir` itself) that group or others may use is set to
 * 0700 or 0600; returns what was loose. Symbolic links are left alone (their target may be
 * anywhere); a folder that is missing is nothing to do.
 */
export function tightenDataFolder(dir: string): Loosened[] {
  const loose: Loosened[] = [];
  const visit = (path: string) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    if (stat.isSymbolicLink()) return;
    const wanted = stat.isDirectory() ? FOLDER_MODE : FILE_MODE;
    if ((stat.mode & 0o777 & ~wanted) !== 0) {
      const was = (stat.mode & 0o777).toString(8).padStart(4, '0');
      try {
        chmodSync(path, wanted);
        loose.push({ path, was });
      } catch (error) {
        loose.push({ path, was, error: (error as Error).message });
      }
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return loose;
}
