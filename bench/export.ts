// The export of a large account: how long GET /export's archive takes to write, how
// soon its first bytes come, and how much memory the process holds meanwhile. One person with
// BENCH_EXPORT_LOCATIONS points, BENCH_EXPORT_POSTS posts and BENCH_EXPORT_FILES media files of
// BENCH_EXPORT_FILE_MB each, on SQLite in a temporary folder; the archive goes to a file there.
//   node scripts/node24.mjs bench/export.ts
import { randomBytes, createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exportArchive } from '../src/archive/export.logic.ts';
import { openDatabase } from '../src/db/database.ts';
import type { ScopeValue } from '../src/db/schema.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newId } from '../src/lib/ids.ts';
import { fileKey, mediaStorage } from '../src/media/media.storage.ts';
import { createUser } from '../src/users/users.logic.ts';

const LOCATIONS = Number(process.env.BENCH_EXPORT_LOCATIONS ?? 1_000_000);
const POSTS = Number(process.env.BENCH_EXPORT_POSTS ?? 100_000);
const FILES = Number(process.env.BENCH_EXPORT_FILES ?? 200);
const FILE_MB = Number(process.env.BENCH_EXPORT_FILE_MB ?? 5);

const SCOPES: ScopeValue[] = ['public', 'private'];

const dir = mkdtempSync(join(tmpdir(), 'waypost-bench-export-'));
const database = openDatabase({ sqlitePath: join(dir, 'waypost.db') });
try {
  await migrateToLatest(database);
  const { db } = database;
  const user = await createUser(db, { username: 'bench', password: 'bench password long' }, { log2N: 10, r: 8, p: 1 });
  const t0 = 1_500_000_000_000;
  const seedStart = performance.now();
  for (let start = 0; start < LOCATIONS; start += 5000) {
    const rows = Array.from({ length: Math.min(5000, LOCATIONS - start) }, (_, i) => ({
      user_id: user.id,
      id: newId(),
      scope: SCOPES[i % 2]!,
      time: t0 + (start + i) * 1000,
      created_at: t0,
      lat: 52.5 + (start + i) / 1e7,
      lon: 13.4,
      alt: 35,
      accuracy: 5,
      speed: 1.2,
      heading: 90,
      source: null,
    }));
    await db.transaction().execute(async (trx) => {
      for (let k = 0; k < rows.length; k += 500)
        await trx
          .insertInto('locations')
          .values(rows.slice(k, k + 500))
          .execute();
    });
  }
  for (let start = 0; start < POSTS; start += 5000) {
    const rows = Array.from({ length: Math.min(5000, POSTS - start) }, (_, i) => ({
      user_id: user.id,
      id: newId(),
      scope: 'public' as const,
      time: t0 + (start + i) * 1000,
      created_at: t0,
      text: `post ${start + i} `.repeat(20),
      media_ids: '[]',
      lat: null,
      lon: null,
      source: null,
    }));
    await db.transaction().execute(async (trx) => {
      for (let k = 0; k < rows.length; k += 500)
        await trx
          .insertInto('posts')
          .values(rows.slice(k, k + 500))
          .execute();
    });
  }
  const storage = mediaStorage({ dataDir: dir, storage: { kind: 'local' } });
  for (let i = 0; i < FILES; i++) {
    const bytes = randomBytes(FILE_MB * 1024 * 1024);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = storage.store.localPath(fileKey(sha256))!;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    await db
      .insertInto('media')
      .values({
        user_id: user.id,
        id: newId(),
        scope: 'private',
        time: t0 + i,
        created_at: t0,
        kind: 'image',
        mime_type: 'image/jpeg',
        size: bytes.length,
        sha256,
        width: 1,
        height: 1,
        duration: null,
        lat: null,
        lon: null,
        caption: '',
        has_thumbnail: 0,
        source: null,
      })
      .execute();
  }
  console.log(
    `seeded ${LOCATIONS} locations, ${POSTS} posts, ${FILES} files of ${FILE_MB} MB in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );

  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  let firstByte = 0;
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (bytes === 0) firstByte = performance.now() - started;
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const archive = await exportArchive(db, storage, user, { baseUrl: 'http://bench.test' });
  const target = join(dir, 'export.zip');
  await pipeline(archive, counter, createWriteStream(target));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `export: ${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s (${(bytes / 1e6 / seconds).toFixed(0)} MB/s), ` +
      `first byte after ${firstByte.toFixed(0)} ms, RSS ${(rssBefore / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB ` +
      `(file ${(statSync(target).size / 1e6).toFixed(0)} MB)`,
  );
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
