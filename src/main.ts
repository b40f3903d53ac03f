// Start: configuration, database (migrated), HTTP server, job worker, graceful shutdown.
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { databaseOptions, type Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createJobRunner, type JobRunner } from './job-runner.ts';
import type { Purged } from './housekeeping/housekeeping.ts';
import { tightenDataFolder } from './lib/data-folder.ts';
import { createLogger } from './logger.ts';
import type { Logger } from 'pino';
import { setupNotice } from './users/setup.logic.ts';
import { loopbackBaseUrl } from './web/trackers/trackers.page.ts';

export function openConfiguredDatabase(config: Config): Database {
  return openDatabase(databaseOptions(config));
}

/**
 * The data folder's modes, checked at start (README "Security"): what group or others could
 * read is made 0700 (folders) or 0600 (files), with a warning, since it came from an older
 * version, a restore or a hand.
 */
function checkDataFolder(config: Config, logger: Logger): void {
  const loose = tightenDataFolder(config.dataDir);
  if (loose.length === 0) return;
  const fixed = loose.filter((entry) => entry.error === undefined);
  const stuck = loose.filter((entry) => entry.error !== undefined);
  if (fixed.length > 0) {
    logger.warn(
      { data_dir: config.dataDir, count: fixed.length, first: fixed.slice(0, 10) },
      `${fixed.length} file(s) or folder(s) in the data folder were readable by others; made 0600 (files) and 0700 (folders)`,
    );
  }
  if (stuck.length > 0) {
    logger.error(
      { data_dir: config.dataDir, count: stuck.length, first: stuck.slice(0, 10) },
      `${stuck.length} file(s) or folder(s) in the data folder are readable by others and could not be changed`,
    );
  }
}

export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config);
  checkDataFolder(config, logger);
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  // The delivery worker runs in this process unless the operator runs `waypost worker`s.
  // The worker's housekeeping counts go to the app's metrics (the app is built next).
  const counts: { record?: (purged: Purged) => void } = {};
  const jobs: JobRunner | undefined = config.inlineWorker
    ? createJobRunner({
        config,
        database,
        onError: (err) => logger.error({ err }, 'job worker error'),
        onPurged: (purged) => {
          logger.debug({ purged }, 'housekeeping removed');
          counts.record?.(purged);
        },
      })
    : undefined;
  const app = await buildApp({ config, database, logger, onJobsQueued: () => jobs?.worker.wake() });
  counts.record = (purged) => app.recordPurged(purged);

  // SIGINT/SIGTERM: stop accepting, let requests and jobs in flight finish (up to 10 s), close
  // the database. A second signal or an uncaught error ends the process at once; a job cut off
  // is taken up again when its lease runs out.
  closeWithGrace({ delay: 10_000, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    await app.close();
    await jobs?.close();
    await database.close();
  });
  jobs?.start();

  await app.listen({ host: config.host, port: config.port });
  logger.info(
    { base_url: config.baseUrl, database: database.dialect, data_dir: config.dataDir },
    `Waypost is listening; open ${config.baseUrl}/`,
  );

  const unreachable = loopbackBaseUrl(config.baseUrl);
  if (unreachable) {
    logger.warn(
      { base_url: unreachable },
      `Trackers' QR codes and ingest URLs point at ${unreachable}, which a phone cannot reach: set WAYPOST_BASE_URL ` +
        'to the address phones reach this server at (e.g. https://waypost.example.org or http://192.168.1.20:8080) and start again',
    );
  }
  const setup = await setupNotice(database.db, config.baseUrl);
  if (setup) logger.warn({ setup_url: setup.setup_url }, setup.message);
}

/** `waypost worker`: runs jobs only, until SIGINT/SIGTERM (then finishes the ones in flight). */
export async function work(config: Config): Promise<void> {
  const logger = createLogger(config);
  checkDataFolder(config, logger);
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const jobs = createJobRunner({
    config,
    database,
    onError: (err) => logger.error({ err }, 'job worker error'),
    onPurged: (purged) => logger.info({ purged }, 'housekeeping removed'),
  });
  closeWithGrace({ delay: 10_000, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'worker shutting down');
    await jobs.close();
    await database.close();
  });
  jobs.start();
  logger.info({ worker: jobs.worker.id, database: database.dialect }, 'Waypost worker is running');
}
