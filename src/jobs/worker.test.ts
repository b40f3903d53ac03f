// The queue and the worker on their own: claiming (several workers never take one job twice),
// the retry policy, and the running loop's start and graceful stop.
import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECT, type TestDatabase } from '../../test/helpers.ts';
import type { Database } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { newId } from '../lib/ids.ts';
import { claimJobs, findJob, insertJobs, type JobRow } from './jobs.repo.ts';
import { retryDelayMs } from './retry.ts';
import { createWorker, type JobHandler } from './worker.ts';

// One database for the file, emptied between tests: on PostgreSQL each schema dropped can make
// another test file's migration fail (Kysely's migrator reads every schema's tables), so few.
let test: TestDatabase | undefined;
const opened: Database[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close()));
  if (test) await test.database.db.deleteFrom('jobs').execute();
});
afterAll(async () => {
  await test?.database.close();
  await test?.drop();
});

async function freshQueue(): Promise<TestDatabase> {
  if (!test) {
    test = await createTestDatabase();
    await migrateToLatest(test.database);
  }
  return test;
}

function job(kind: string, payload: unknown = {}, overrides: Partial<JobRow> = {}): JobRow {
  return {
    id: newId(),
    kind,
    ref: null,
    payload: JSON.stringify(payload),
    status: 'queued',
    attempts: 0,
    max_attempts: 3,
    run_at: 1000,
    locked_by: null,
    locked_until: null,
    last_error: null,
    created_at: 1000,
    updated_at: 1000,
    ...overrides,
  };
}

/**
 * Holds the write lock of the jobs table on another connection, as a writer in the middle of a
 * transaction does (SQLite: the database's one write lock; PostgreSQL: a lock that lets plain
 * reads through and makes any UPDATE wait). Returns what lets it go.
 */
async function holdWriteLock(other: Database): Promise<() => Promise<void>> {
  if (other.sqlite) {
    other.sqlite.prepare('begin immediate').run();
    return () => Promise.resolve(void other.sqlite!.prepare('rollback').run());
  }
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const held = new Promise<void>((resolve) => (locked = resolve));
  const done = other.db.transaction().execute(async (trx) => {
    await sql`lock table jobs in exclusive mode`.execute(trx);
    locked();
    await released;
  });
  await held;
  return async () => {
    release();
    await done;
  };
}

describe('retryDelayMs', () => {
  const policy = { baseMs: 1000, maxMs: 60_000 };
  it('doubles per attempt, with jitter between half and all of the step, up to the limit', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, () => 0.999999))).toEqual([
      1000, 2000, 4000, 8000,
    ]);
    expect(retryDelayMs(30, policy, () => 0.5)).toBe(45_000);
  });
});

describe(`the queue on ${DIALECT}`, () => {
  it('several workers claiming at once never take the same job, and take only due ones', async () => {
    const queue = await freshQueue();
    const { database } = queue;
    await insertJobs(database.db, [
      ...Array.from({ length: 40 }, () => job('noop')),
      job('noop', {}, { run_at: 5000 }),
    ]);
    // On PostgreSQL each worker has its own connections, so the claims really overlap.
    const workers = Array.from({ length: 4 }, () => (DIALECT === 'postgres' ? queue.reopen() : database));
    opened.push(...workers.filter((w) => w !== database));
    const claims = await Promise.all(
      workers.map((w, i) =>
        Promise.all(
          [0, 1, 2].map(() =>
            claimJobs(w.db, { dialect: w.dialect, workerId: `w${i}`, now: 2000, leaseMs: 1000, limit: 4 }),
          ),
        ),
      ),
    );
    const ids = claims.flat(2).map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    const more = await claimJobs(database.db, {
      dialect: database.dialect,
      workerId: 'x',
      now: 2000,
      leaseMs: 1000,
      limit: 100,
    });
    expect(ids.length + more.length).toBe(40);
    expect([...claims.flat(2), ...more].every((row) => row.attempts === 1 && row.status === 'running')).toBe(true);
  });

  it('a poll that finds nothing due takes no write lock: it answers at once while another process writes', async () => {
    const queue = await freshQueue();
    const { database } = queue;
    await insertJobs(database.db, [job('later', {}, { run_at: 5000 })]);
    // Another process (an import's child) in the middle of a write transaction.
    const other = queue.reopen();
    opened.push(other);
    const release = await holdWriteLock(other);
    try {
      const claimed = await claimJobs(database.db, {
        dialect: database.dialect,
        workerId: 'w',
        now: 2000,
        leaseMs: 1000,
        limit: 4,
      });
      expect(claimed).toEqual([]);
    } finally {
      await release();
    }
  });

  it('a job whose lease ran out is claimed again, and the first worker can no longer close it', async () => {
    const { database } = await freshQueue();
    const row = job('slow');
    await insertJobs(database.db, [row]);
    const claim = (workerId: string, now: number) =>
      claimJobs(database.db, { dialect: database.dialect, workerId, now, leaseMs: 1000, limit: 1 });
    expect(await claim('a', 2000)).toHaveLength(1);
    expect(await claim('b', 2500)).toHaveLength(0);
    expect(await claim('b', 3001)).toMatchObject([{ id: row.id, attempts: 2, locked_by: 'b' }]);
  });

  it('runs handlers: done, retried after a backoff, failed at the limit or at once when permanent', async () => {
    const { database } = await freshQueue();
    let clock = 2000;
    const outcomes: string[] = [];
    const handler = (perform: () => Promise<void>): JobHandler =>
      ({
        perform,
        succeeded: async (_trx, j) => void outcomes.push(`${j.kind} ok ${j.attempt}`),
        failed: async (_trx, j, error, final) =>
          void outcomes.push(`${j.kind} ${final ? 'failed' : 'retry'} ${j.attempt}: ${error}`),
      }) satisfies JobHandler;
    const worker = createWorker({
      db: database.db,
      dialect: database.dialect,
      handlers: {
        fine: handler(async () => {}),
        flaky: handler(async () => {
          throw new Error('try later');
        }),
        hopeless: handler(async () => {
          throw Object.assign(new Error('gone'), { permanent: true });
        }),
      },
      concurrency: 10,
      leaseMs: 10_000,
      retry: { baseMs: 1000, maxMs: 1000 },
      now: () => clock,
      random: () => 0,
    });
    const rows = [job('fine'), job('flaky'), job('hopeless'), job('unknown')];
    await insertJobs(database.db, rows);
    expect(await worker.runOnce()).toBe(4);
    expect(await worker.runOnce()).toBe(0);
    clock += 500;
    expect(await worker.runOnce()).toBe(1);
    clock += 500;
    expect(await worker.runOnce()).toBe(1);
    expect(outcomes.sort()).toEqual([
      'fine ok 1',
      'flaky failed 3: try later',
      'flaky retry 1: try later',
      'flaky retry 2: try later',
      'hopeless failed 1: gone',
    ]);
    const statuses = await Promise.all(rows.map(async (row) => (await findJob(database.db, row.id))?.status));
    expect(statuses).toEqual(['done', 'failed', 'failed', 'failed']);
    expect((await findJob(database.db, rows[3]?.id ?? ''))?.last_error).toBe('no handler for jobs of kind unknown');
  });

  it('start() runs jobs as they come; stop() waits for the one in flight', async () => {
    const { database } = await freshQueue();
    let release: () => void = () => {};
    const started: string[] = [];
    const finished: string[] = [];
    const worker = createWorker({
      db: database.db,
      dialect: database.dialect,
      handlers: {
        hold: {
          perform: async (j) => {
            started.push(j.id);
            await new Promise<void>((resolve) => (release = resolve));
          },
          succeeded: async (_trx, j) => void finished.push(j.id),
          failed: async () => {},
        },
      },
      concurrency: 2,
      leaseMs: 10_000,
      retry: { baseMs: 1000, maxMs: 1000 },
      pollMs: 5,
    });
    worker.start();
    const row = job('hold', {}, { run_at: 0 });
    await insertJobs(database.db, [row]);
    worker.wake();
    while (started.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const stopping = worker.stop();
    release();
    await stopping;
    expect(finished).toEqual([row.id]);
    expect((await findJob(database.db, row.id))?.status).toBe('done');
  });
});
