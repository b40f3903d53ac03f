// A Waypost server for the benchmarks, in its own process: the SQLite database (or PostgreSQL URL) at argv[2],
// migrated, listening on a free loopback port. With BENCH_TOKEN_USER set it also issues an
// access token for that user (BENCH_TOKEN_PERMISSIONS, comma-separated; default write_locations),
// the same way test/tokens.ts does. With BENCH_PORT set it listens on that port, its base URL
// that origin (a browser signing in through the pages sends it). It prints
// one JSON line `{port, token}` and serves until killed. With BENCH_JOBS=1 it runs the job worker
// as `waypost serve` does (imports in child processes; BENCH_IMPORTS_IN_PROCESS=1: in this one).
import { buildApp } from '../src/app.ts';
import { createJobRunner, type JobRunner } from '../src/job-runner.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { pino } from 'pino';
import type { Permission } from '../src/core/permissions.ts';
import { tokenFor } from '../test/tokens.ts';

const [path, dataDir] = process.argv.slice(2);
if (!path || !dataDir) throw new Error('usage: server.ts <sqlite path or postgres:// URL> <data dir>');
const port = Number(process.env.BENCH_PORT ?? 0);
const database = openDatabase(path.startsWith('postgres://') ? { url: path } : { sqlitePath: path });
await migrateToLatest(database);
const config = loadConfig({
  WAYPOST_DATA_DIR: dataDir,
  WAYPOST_BASE_URL: port ? `http://127.0.0.1:${port}` : 'http://127.0.0.1',
  WAYPOST_SECRET_KEY: 'b2'.repeat(32),
  WAYPOST_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  // The benchmark runs the page path with and without copies of public pages.
  WAYPOST_PUBLIC_CACHE_MB: process.env.WAYPOST_PUBLIC_CACHE_MB,
  WAYPOST_PUBLIC_CACHE_REVALIDATE_MS: process.env.WAYPOST_PUBLIC_CACHE_REVALIDATE_MS,
  // The map benchmark draws without a basemap ('none'): it runs offline.
  WAYPOST_MAP_STYLE: process.env.WAYPOST_MAP_STYLE,
});
// Logs at the default level, as a server does, written to /dev/null (stdout carries the ready line).
const logger = createLogger(config, pino.destination({ dest: '/dev/null', sync: true }));
const jobs: JobRunner | undefined = process.env.BENCH_JOBS
  ? createJobRunner({
      config,
      database,
      importDatabase: path.startsWith('postgres://') ? { url: path } : { sqlitePath: path },
      isolateImports: !process.env.BENCH_IMPORTS_IN_PROCESS,
    })
  : undefined;
const app = await buildApp({ config, database, logger, onJobsQueued: () => jobs?.worker.wake() });
jobs?.start();
await app.listen({ host: '127.0.0.1', port });
const listening = (app.server.address() as { port: number }).port;
const userId = process.env.BENCH_TOKEN_USER;
const token = userId
  ? await tokenFor(
      { app, database, config, close: async () => {}, drop: async () => {} },
      { id: userId },
      // BENCH_TOKEN_PERMISSIONS: comma-separated, for benchmarks that read (default write_locations).
      (process.env.BENCH_TOKEN_PERMISSIONS?.split(',') ?? ['write_locations']) as Permission[],
    )
  : undefined;
process.stdout.write(`${JSON.stringify({ port: listening, token })}\n`);

// Exit cleanly when the benchmark stops us (and let --cpu-prof write its profile).
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
