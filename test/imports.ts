// Imports in tests: uploads through inject, and a worker that runs only import jobs.
import { createWorker, type Worker } from '../src/jobs/worker.ts';
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
    handlers: { [IMPORT_JOB]: importHandler({ database: t.database, ...deps }) },
    concurrency: 1,
    leaseMs: 60_000,
    retry: { baseMs: 1, maxMs: 1 },
    ...(now ? { now } : {}),
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
