// The import worker: a child process the job runner forks (src/imports/imports.fork.ts) to run
// one import, with a heap limit of its own, so that whatever a file costs is this process's and
// never the server's. It opens its own connection to the database, runs the import job as the
// server would (renewing the job's lease in each batch's transaction, in the server's worker's
// name), tells the server of each batch and of the end, and exits when the server lets it go.
import { openDatabase, type Db } from './db/database.ts';
import { importFiles } from './imports/imports.files.ts';
import { performImport } from './imports/imports.job.ts';
import { ReadingOutOfMemory } from './imports/reading.ts';
import type { ChildReply, ChildRequest } from './imports/imports.fork.ts';
import { lazyMedia, restoreDeps } from './job-runner.ts';
import { extendLease } from './jobs/jobs.repo.ts';
import { isPermanent } from './jobs/worker.ts';

function send(reply: ChildReply): Promise<void> {
  // A server that is already gone is no error here: 'disconnect' ends us.
  return new Promise((resolve) => process.send?.(reply, undefined, {}, () => resolve()));
}

async function run(request: ChildRequest): Promise<void> {
  const { config } = request;
  // Two connections: the import's batches, and the lease renewed beside them. Every write here
  // is redone by the import's next run if a crash loses it (docs/imports.md "Writing a batch, and durability").
  const database = openDatabase({ ...request.database, poolSize: 2, relaxedCommits: true });
  const media = lazyMedia(config);
  const holder = { id: request.jobId, workerId: request.workerId };
  let reply: ChildReply;
  try {
    const outcome = await performImport(
      {
        database,
        files: importFiles(config),
        restore: restoreDeps(config, media),
        batchRecords: request.batchRecords,
        onBatch: (row) => send({ batch: row }),
      },
      request.importId,
      (trx?: Db) => {
        // Outside a batch (the statistics at the end): the server is told the child is at work.
        if (!trx) void send({ alive: true });
        return extendLease(trx ?? database.db, holder, Date.now() + request.leaseMs, Date.now());
      },
    );
    reply = { done: outcome };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error), permanent: isPermanent(error) };
    // The file's reader ran out of memory in its thread: the same end as this process running out.
    if (error instanceof ReadingOutOfMemory) reply.outOfMemory = true;
  }
  media.close();
  await database.close().catch(() => {});
  await send(reply);
}

process.once('message', (request: ChildRequest) => void run(request));
process.on('disconnect', () => process.exit(0));
