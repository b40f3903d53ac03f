// Housekeeping deletes what has a lifetime and nothing else: Idempotency-Key records past their
// time, jobs that ended longer ago than the retention; queued and running jobs, and records
// still in their time, stay.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { purgeExpired } from './housekeeping.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const DAY = 24 * 60 * 60 * 1000;

it('purges Idempotency-Key records past their time and jobs that ended before the retention', async () => {
  const db = t.database.db;
  const user = await createTestUser(t.database);
  const now = Date.UTC(2026, 10, 23);
  const key = (name: string, expires: number) => ({
    user_id: user.id,
    scope: 'POST /posts',
    key: name,
    fingerprint: 'f',
    response: null,
    created_at: expires - DAY,
    expires_at: expires,
  });
  await db
    .insertInto('idempotency_keys')
    .values([key('old', now - 1), key('live', now + 1)])
    .execute();
  const job = (id: string, status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled', updated: number) => ({
    id,
    kind: 'delivery',
    ref: null,
    payload: '{}',
    status,
    attempts: 1,
    max_attempts: 8,
    run_at: updated,
    locked_by: null,
    locked_until: null,
    last_error: null,
    created_at: updated,
    updated_at: updated,
  });
  const long = now - 8 * DAY;
  const recent = now - 6 * DAY;
  await db
    .insertInto('jobs')
    .values([
      job('done-old', 'done', long),
      job('failed-old', 'failed', long),
      job('cancelled-old', 'cancelled', long),
      job('done-recent', 'done', recent),
      job('queued-old', 'queued', long),
      job('running-old', 'running', long),
    ])
    .execute();

  await purgeExpired(db, now, 7);

  const keys = await db.selectFrom('idempotency_keys').select('key').where('user_id', '=', user.id).execute();
  expect(keys.map((row) => row.key)).toEqual(['live']);
  const jobs = await db.selectFrom('jobs').select('id').orderBy('id').execute();
  expect(jobs.map((row) => row.id)).toEqual(['done-recent', 'queued-old', 'running-old']);
});
