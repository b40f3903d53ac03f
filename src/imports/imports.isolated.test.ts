// Imports as the server runs them: each in a child process with a heap of its own
// (imports.fork.ts, src/import-worker.ts). A real import goes through the child; a bracket bomb
// is refused by the reader long before the child's heap limit; a file that does exhaust the
// child's heap kills the child, not the server, and after two such deaths (counted in the
// database, so a restart between them changes nothing) the import fails for good.
import { importFileNames } from '../../test/storage.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../test/helpers.ts';
import { drain, isolatedImportWorker, uploadImport } from '../../test/imports.ts';
import { listeningTestApp } from '../../test/server.ts';
import { tokenFor } from '../../test/tokens.ts';

let t: Awaited<ReturnType<typeof listeningTestApp>>;
let writer: string;

beforeAll(async () => {
  t = await listeningTestApp();
  const user = await createTestUser(t.database, { username: 'traveller' });
  writer = await tokenFor(t, user, ['write_locations']);
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.database.db.deleteFrom('locations').execute();
  await t.database.db.deleteFrom('imports').execute();
  await t.database.db.deleteFrom('jobs').execute();
});

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${writer}` } });

const T0 = Date.UTC(2023, 0, 2, 3, 4, 5);
const record = (i: number) => ({
  latitudeE7: 481_000_000 + i * 100,
  longitudeE7: 115_000_000 + i * 100,
  timestamp: new Date(T0 + i * 60_000).toISOString(),
});

async function jobAndDeaths(id: string) {
  const job = await t.database.db.selectFrom('jobs').select(['status', 'attempts']).executeTakeFirstOrThrow();
  const row = await t.database.db
    .selectFrom('imports')
    .select('worker_deaths')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { ...job, worker_deaths: row.worker_deaths };
}

describe('an import in a child process', () => {
  it('runs there: the points are stored, counted and the upload removed, by a process that is not the server', async () => {
    const file = JSON.stringify({ locations: Array.from({ length: 50 }, (_, i) => record(i)) });
    const { id } = (await uploadImport(t, writer, file, 'Records.json')).json<{ id: string }>();
    const pids: number[] = [];
    await drain(isolatedImportWorker(t, { onStart: (pid) => pids.push(pid) }));
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(process.pid);
    expect((await get(`/imports/${id}`)).json()).toMatchObject({
      status: 'done',
      progress: 1,
      points_seen: 50,
      points_stored: 50,
      duplicates: 0,
      errors: [],
    });
    expect(await jobAndDeaths(id)).toEqual({ status: 'done', attempts: 1, worker_deaths: 0 });
    expect((await importFileNames(t)).includes(id)).toBe(false);
  });

  it('a 10 MB bracket bomb is refused by the reader, far below a 64 MiB heap: import_too_deep, no death', async () => {
    const first = JSON.stringify(record(0));
    const file = `{"locations":[${first},${'['.repeat(10_000_000)}`;
    const { id } = (await uploadImport(t, writer, file, 'Records.json')).json<{ id: string }>();
    await drain(isolatedImportWorker(t, { memoryMb: 64 }));
    expect((await get(`/imports/${id}`)).json()).toMatchObject({
      status: 'failed',
      errors: [
        {
          where: 'Records.json',
          message: `the import stopped: import_too_deep: Records.json: byte ${14 + first.length + 1 + 62} nests deeper than 64 levels; the file was not read further`,
        },
      ],
    });
    expect(await jobAndDeaths(id)).toEqual({ status: 'failed', attempts: 1, worker_deaths: 0 });
  });

  it('a file that fills the heap kills the child, not the server; the second death, after a restart, fails it for good', async () => {
    // Within every bound of the readers (one record of 7 MiB), but millions of objects once parsed.
    const file = `{"locations":[{"activity":[${'{},'.repeat(2_500_000)}{}]}]}`;
    const { id } = (await uploadImport(t, writer, file, 'Records.json')).json<{ id: string }>();

    // The first death: the job goes back to the queue, the death is on the import.
    expect(await isolatedImportWorker(t, { memoryMb: 64 }).runOnce()).toBe(1);
    expect((await get(`/imports/${id}`)).json()).toMatchObject({ status: 'queued', errors: [] });
    expect(await jobAndDeaths(id)).toEqual({ status: 'queued', attempts: 1, worker_deaths: 1 });
    const lastError = await t.database.db.selectFrom('jobs').select('last_error').executeTakeFirstOrThrow();
    expect(lastError).toEqual({
      last_error: 'import_worker_died: the import worker ran out of memory (its heap limit is 64 MiB)',
    });

    // A worker of a restarted server (a new handler, nothing kept in memory) takes it up; the
    // second death is the last.
    await drain(isolatedImportWorker(t, { memoryMb: 64 }));
    expect((await get(`/imports/${id}`)).json()).toMatchObject({
      status: 'failed',
      errors: [
        {
          where: 'Records.json',
          message:
            'the import stopped: import_worker_died: the import worker ran out of memory (its heap limit is 64 MiB), 2 times on this file; it is not tried again',
        },
      ],
    });
    expect(await jobAndDeaths(id)).toEqual({ status: 'failed', attempts: 2, worker_deaths: 2 });
    expect((await importFileNames(t)).includes(id)).toBe(false);

    // The server lived through it and answers over HTTP.
    const health = await fetch(`${t.baseUrl}/healthz`);
    expect(health.status).toBe(200);
  });

  it('a child that makes no progress is stopped and counted as a death, not left holding the job', async () => {
    const { id } = (await uploadImport(t, writer, JSON.stringify({ locations: [record(0)] }), 'Records.json')).json<{
      id: string;
    }>();
    const pids: number[] = [];
    const stuck = isolatedImportWorker(t, { worker: STUCK, stallMs: 1000, onStart: (pid) => pids.push(pid) });
    expect(await stuck.runOnce()).toBe(1);
    expect(await jobAndDeaths(id)).toEqual({ status: 'queued', attempts: 1, worker_deaths: 1 });
    const job = await t.database.db.selectFrom('jobs').select('last_error').executeTakeFirstOrThrow();
    expect(job).toEqual({
      last_error: 'import_worker_died: the import worker made no progress for 1 s and was stopped',
    });
    await exited(pids[0]!);
  });

  it('DELETE stops the child of a running import', async () => {
    const { id } = (await uploadImport(t, writer, JSON.stringify({ locations: [record(0)] }), 'Records.json')).json<{
      id: string;
    }>();
    let started: (pid: number) => void = () => {};
    const pid = new Promise<number>((resolve) => (started = resolve));
    const run = isolatedImportWorker(t, { worker: STUCK, onStart: started, leaseMs: 3000 }).runOnce();
    await pid;
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/imports/${id}`,
      headers: { authorization: `Bearer ${writer}` },
    });
    expect(deleted.statusCode).toBe(204);
    expect(await run).toBe(1);
    await exited(await pid);
    expect(await t.database.db.selectFrom('jobs').select(['status']).execute()).toEqual([{ status: 'cancelled' }]);
  });
});

/** A module that takes the import and spins (test/import-worker-stuck.ts). */
const STUCK = new URL('../../test/import-worker-stuck.ts', import.meta.url);

/** Resolves once process `pid` is gone. */
async function exited(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
