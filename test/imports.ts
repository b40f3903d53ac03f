// Imports in tests: uploads through inject, and a worker that runs only import jobs.
import { join } from 'node:path';
import { createWorker, type Worker } from '../src/jobs/worker.ts';
import type { IsolateOptions } from '../src/imports/imports.fork.ts';
import { importFiles } from '../src/imports/imports.files.ts';
import { IMPORT_JOB, importHandler, type ImportJobDeps } from '../src/imports/imports.job.ts';
import type { TestApp } from './helpers.ts';
import { multipart } from './media.ts';

/** POST /imports with one file and optional fields. */
export async function uploadImport(
  t: TestApp,
  token: string,
  file: Buffer | string,
  filename: string,
  fields: Record<string, string> = {},
) {
  const body = await multipart(Buffer.from(file), filename, 'application/octet-stream', fields);
  return t.app.inject({
    method: 'POST',
    url: '/imports',
    headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType },
    payload: body.payload,
  });
}

/** A worker for import jobs on the app's database; `deps` sets batch size and a hook per batch. */
export function importWorker(t: TestApp, deps: Partial<ImportJobDeps> = {}, now?: () => number): Worker {
  return createWorker({
    db: t.database.db,
    dialect: t.database.dialect,
    handlers: { [IMPORT_JOB]: importHandler({ database: t.database, files: importFiles(t.config), ...deps }) },
    concurrency: 1,
    leaseMs: 60_000,
    retry: { baseMs: 1, maxMs: 1 },
    ...(now ? { now } : {}),
  });
}

/** The child module the server forks for each import (src/import-worker.ts). */
export const IMPORT_WORKER = new URL('../src/import-worker.ts', import.meta.url);

/**
 * A worker for import jobs that runs each in a child process, as the server does, connected to
 * the app's own database; `isolate` sets the heap and a hook told the child's pid.
 */
export function isolatedImportWorker(t: TestApp, isolate: Partial<IsolateOptions> = {}): Worker {
  return importWorker(t, {
    isolate: {
      worker: IMPORT_WORKER,
      database: { url: t.databaseUrl, sqlitePath: join(t.config.dataDir, 'waypost.db') },
      config: t.config,
      memoryMb: 256,
      leaseMs: 60_000,
      ...isolate,
    },
  });
}

/** Runs import jobs until none is due (a retry is due a moment after its failure). */
export async function drain(worker: Worker): Promise<void> {
  for (let idle = 0; idle < 2;) {
    if ((await worker.runOnce()) > 0) idle = 0;
    else {
      idle += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
