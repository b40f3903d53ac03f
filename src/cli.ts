// The `waypost` command: serve (default), worker, migrate, user, client, import, export, storage.
import { clientCommand } from './cli/clients.cli.ts';
import { importCommand } from './cli/imports.cli.ts';
import { exportCommand } from './cli/export.cli.ts';
import { storageCommand } from './cli/storage.cli.ts';
import { userCommand } from './cli/users.cli.ts';
import { stdio, UsageError } from './cli/output.ts';
import { ConfigError, loadConfig } from './config.ts';
import { migrateToLatest } from './db/migrate.ts';
import { restrictNewFiles } from './lib/data-folder.ts';
import { AppError } from './core/errors.ts';
import { openConfiguredDatabase, serve, work } from './main.ts';

const USAGE = `usage: waypost <command>

  serve              run the server (the default)
  worker             run only the job worker (deliveries); set WAYPOST_INLINE_WORKER=false on servers
  migrate            bring the database schema up to date, then exit
  user ...           add, list, passwd, delete accounts (waypost user for details)
  client ...         add, list, delete OAuth clients (waypost client for details)
  import ...         import location history files: import --user <name> <file>...
  export --user <username> <file.zip>
                     write everything the account owns to a ZIP (as GET /export)
  storage migrate --to s3|local
                     copy every file to the S3 bucket (or back to the data folder), verified

Configuration comes from the environment; see the README.`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...args] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    stdio.print(USAGE);
    return 0;
  }
  // Before anything is written to the data folder (src/lib/data-folder.ts).
  restrictNewFiles();
  const config = loadConfig();
  if (command === 'serve') {
    await serve(config);
    return -1; // keeps running until a signal
  }
  if (command === 'worker') {
    await work(config);
    return -1;
  }
  const database = openConfiguredDatabase(config);
  try {
    switch (command) {
      case 'migrate': {
        const applied = await migrateToLatest(database);
        stdio.info(applied.length > 0 ? `applied ${applied.join(', ')}` : 'the schema is up to date');
        return 0;
      }
      case 'user':
        await migrateToLatest(database);
        await userCommand(database, config, args, stdio);
        return 0;
      case 'client':
        await migrateToLatest(database);
        await clientCommand(database.db, config, args, stdio);
        return 0;
      case 'import': {
        await migrateToLatest(database);
        const progress = process.stdout.isTTY ? process.stdout : undefined;
        return (await importCommand(database, config, args, stdio, { progress })) ? 0 : 1;
      }
      case 'storage':
        await migrateToLatest(database);
        return (await storageCommand(database.db, config, args, stdio)) ? 0 : 1;
      case 'export':
        await migrateToLatest(database);
        await exportCommand(database.db, config, args, stdio);
        return 0;
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      stdio.info(error.message);
      process.exitCode = 2;
    } else if (error instanceof ConfigError) {
      stdio.info(`waypost: configuration error: ${error.message}`);
      process.exitCode = 1;
    } else if (error instanceof AppError) {
      stdio.info(`waypost: ${error.message}`);
      process.exitCode = 1;
    } else {
      stdio.info(`waypost: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  },
);
