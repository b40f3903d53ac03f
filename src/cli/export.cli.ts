import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { exportArchive } from '../archive/export.logic.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { mediaStorage } from '../media/media.storage.ts';
import { getUser } from '../users/users.logic.ts';
import { UsageError, type Output } from './output.ts';

const USAGE = `usage:
  waypost export --user <username> <file.zip>   everything the account owns, as GET /export gives it`;

/** A progress line redrawn in place, at most a few times a second; only on a terminal. */
function progressLine(stream: NodeJS.WriteStream) {
  let last = 0;
  let state = { done: 0, total: 0 };
  const draw = () => {
    const percent = state.total === 0 ? 100 : Math.floor((state.done / state.total) * 100);
    stream.write(`\rexporting: ${state.done} of ${state.total} items and files (${percent} %)`);
  };
  return {
    update(done: number, total: number) {
      state = { done, total };
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      draw();
    },
    end: () => {
      draw();
      stream.write('\n');
    },
  };
}

/**
 * `waypost export`: the archive of src/archive/export.logic.ts written to a file. It is
 * written under a temporary name beside the target and renamed when whole, so the target is
 * never half an archive.
 */
export async function exportCommand(db: Db, config: Config, args: string[], out: Output): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { user: { type: 'string' } } });
  const [target] = positionals;
  if (!values.user || !target || positionals.length > 1) throw new UsageError(USAGE);
  const user = await getUser(db, values.user);
  const progress = process.stderr.isTTY ? progressLine(process.stderr) : undefined;
  const archive = await exportArchive(db, mediaStorage(config), user, {
    baseUrl: config.baseUrl,
    ...(progress ? { onProgress: (done: number, total: number) => progress.update(done, total) } : {}),
  });
  const temp = `${target}.part`;
  try {
    await pipeline(archive, createWriteStream(temp, { flags: 'w', mode: 0o600 }));
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    progress?.end();
  }
  out.info(`exported ${user.username} to ${target}`);
}
