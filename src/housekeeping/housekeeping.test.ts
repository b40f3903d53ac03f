// Housekeeping deletes what has a lifetime once it is over, and nothing else: for each kind, a
// record (or file) just past its time goes and one still in its time stays. It runs as a job of
// the queue, one per period however many workers schedule it, and its counts reach /metrics.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createTestUser, type TestApp } from '../../test/helpers.ts';
import { uploadMedium } from '../../test/media.ts';
import { clearImportFiles, keysUnder, objectBytes } from '../../test/storage.ts';
import { tokenFor } from '../../test/tokens.ts';
import {
  fileKey,
  mediaStorage,
  placeShared,
  thumbnailKey,
  writeFileAtomic,
  writeTemp,
} from '../media/media.storage.ts';
import { Readable } from 'node:stream';
import { createJobRunner } from '../job-runner.ts';
import { DAY_MS, HOUR_MS, purgeExpired, type HousekeepingDeps, type Purged } from './housekeeping.ts';
import { HOUSEKEEPING_JOB, scheduleHousekeeping } from './housekeeping.job.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { WAYPOST_METRICS_TOKEN: 'metrics-token-for-tests' } });
});
afterAll(() => t.close());

const NOW = Date.UTC(2026, 10, 23, 12);

function deps(): HousekeepingDeps {
  return {
    db: t.database.db,
    dataDir: t.config.dataDir,
    jobRetentionDays: 7,
    deliveryRetentionDays: 90,
    tempFileRetentionHours: 24,
  };
}

type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
const job = (id: string, status: JobStatus, updated: number, kind = 'delivery') => ({
  id,
  kind,
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

/** A file whose last write was at `mtime`. */
function file(path: string, mtime: number): void {
  writeFileSync(path, 'left behind');
  utimesSync(path, mtime / 1000, mtime / 1000);
}

describe('purgeExpired', () => {
  let purged: Purged;
  let userId: string;
  const importsDir = () => join(t.config.dataDir, 'imports');
  const mediaTmp = () => join(t.config.dataDir, 'media', 'tmp');

  beforeAll(async () => {
    const db = t.database.db;
    const user = await createTestUser(t.database);
    userId = user.id;
    await db
      .insertInto('oauth_entities')
      .values(
        ['expired', 'live'].map((id) => ({
          kind: 'Grant',
          id,
          payload: '{}',
          grant_id: null,
          account_id: user.id,
          client_id: null,
          uid: null,
          user_code: null,
          expires_at: id === 'expired' ? NOW - 1 : NOW + 1,
          consumed_at: null,
        })),
      )
      .execute();
    // Apps that registered themselves: one past its day unapproved, one in its day, one approved.
    await db
      .insertInto('oauth_entities')
      .values(
        [
          ['app-unapproved', NOW],
          ['app-new', NOW + 1],
          ['app-approved', null],
        ].map(([id, expires]) => ({
          kind: 'Client',
          id: id as string,
          payload: '{}',
          grant_id: null,
          account_id: null,
          client_id: id as string,
          uid: null,
          user_code: null,
          expires_at: expires as number | null,
          consumed_at: null,
        })),
      )
      .execute();
    await db
      .insertInto('web_sessions')
      .values([
        { user_id: user.id, id_hash: 'session-expired', created_at: NOW - DAY_MS, expires_at: NOW - 1 },
        { user_id: user.id, id_hash: 'session-live', created_at: NOW - DAY_MS, expires_at: NOW + 1 },
      ])
      .execute();
    await db
      .insertInto('sign_in_limits')
      .values(
        [
          ['limit-expired', NOW],
          ['limit-live', NOW + 1],
        ].map(([key, expires]) => ({
          key_hash: key as string,
          window_start: NOW - HOUR_MS,
          failures: 3,
          delay_ms: 0,
          next_at: NOW - HOUR_MS,
          expires_at: expires as number,
        })),
      )
      .execute();
    await db
      .insertInto('service_connections')
      .values(
        [
          ['connection-expired', NOW],
          ['connection-live', NOW + 1],
        ].map(([hash, expires]) => ({
          user_id: user.id,
          state_hash: hash as string,
          type: 'mastodon',
          service_id: null,
          name: null,
          config: '{}',
          pending: 'sealed',
          created_at: (expires as number) - 15 * 60 * 1000,
          expires_at: expires as number,
        })),
      )
      .execute();
    const key = (name: string, expires: number) => ({
      user_id: user.id,
      scope: 'POST /posts',
      key: name,
      fingerprint: 'f',
      response: null,
      created_at: expires - DAY_MS,
      expires_at: expires,
    });
    await db
      .insertInto('idempotency_keys')
      .values([key('key-expired', NOW), key('key-live', NOW + 1)])
      .execute();
    const long = NOW - 7 * DAY_MS - 1;
    const recent = NOW - 7 * DAY_MS + 1;
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
    const delivery = (id: string, status: 'pending' | 'delivered' | 'failed' | 'cancelled', updated: number) => ({
      id,
      user_id: user.id,
      post_id: `post-${id}`,
      service_id: 'service',
      status,
      attempts: 1,
      remote_url: null,
      last_error: null,
      created_at: updated,
      updated_at: updated,
    });
    const old = NOW - 90 * DAY_MS - 1;
    await db
      .insertInto('deliveries')
      .values([
        delivery('d-failed-old', 'failed', old),
        delivery('d-cancelled-old', 'cancelled', old),
        delivery('d-failed-recent', 'failed', NOW - 90 * DAY_MS + 1),
        delivery('d-delivered-old', 'delivered', old),
        delivery('d-pending-old', 'pending', old),
      ])
      .execute();

    // Imports: a running one's upload stays however old; a finished one's goes however new.
    mkdirSync(importsDir(), { recursive: true });
    const importRow = (id: string, status: 'running' | 'done' | 'failed' | 'cancelled') => ({
      id,
      user_id: user.id,
      status,
      format: 'gpx',
      filename: 'a.gpx',
      size: 11,
      scope: 'private' as const,
      file_path: join(importsDir(), id),
      file_owned: 1,
      progress: 0,
      points_seen: 0,
      points_stored: 0,
      duplicates: 0,
      skipped: 0,
      checkpoint: 0,
      errors: '[]',
      created_at: NOW,
      started_at: null,
      finished_at: null,
      updated_at: NOW,
    });
    await db
      .insertInto('imports')
      .values([importRow('imp-running', 'running'), importRow('imp-done', 'done'), importRow('imp-failed', 'failed')])
      .execute();
    const day = NOW - 24 * HOUR_MS;
    file(join(importsDir(), 'imp-running'), day - HOUR_MS);
    file(join(importsDir(), 'imp-done'), NOW);
    file(join(importsDir(), 'imp-failed'), NOW);
    file(join(importsDir(), 'orphan-old'), day - 1000);
    file(join(importsDir(), 'orphan-new'), day + 1000);
    file(join(importsDir(), 'upload-old.part'), day - 1000);
    file(join(importsDir(), 'upload-new.part'), day + 1000);
    mkdirSync(mediaTmp(), { recursive: true });
    file(join(mediaTmp(), 'old.part'), day - 1000);
    file(join(mediaTmp(), 'new.part'), day + 1000);

    purged = await purgeExpired(deps(), NOW);
  });

  it('deletes expired OAuth grants and tokens, keeps live ones', async () => {
    const rows = await t.database.db.selectFrom('oauth_entities').select('id').where('kind', '=', 'Grant').execute();
    expect(rows.map((r) => r.id)).toEqual(['live']);
    expect(purged.oauth).toBe(1);
  });

  it('deletes apps that registered themselves and were not approved in their day, keeps the others', async () => {
    const rows = await t.database.db
      .selectFrom('oauth_entities')
      .select('id')
      .where('kind', '=', 'Client')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.id)).toEqual(['app-approved', 'app-new']);
    expect(purged.oauth_apps).toBe(1);
  });

  it('deletes expired web sessions, keeps live ones', async () => {
    const rows = await t.database.db
      .selectFrom('web_sessions')
      .select('id_hash')
      .where('user_id', '=', userId)
      .execute();
    expect(rows.map((r) => r.id_hash)).toEqual(['session-live']);
    expect(purged.sessions).toBe(1);
  });

  it('deletes sign-in counters whose window is over, keeps the others', async () => {
    const rows = await t.database.db.selectFrom('sign_in_limits').select('key_hash').execute();
    expect(rows.map((r) => r.key_hash)).toEqual(['limit-live']);
    expect(purged.sign_in_limits).toBe(1);
  });

  it('deletes services being connected that the person never came back to, keeps the others', async () => {
    const rows = await t.database.db.selectFrom('service_connections').select('state_hash').execute();
    expect(rows.map((r) => r.state_hash)).toEqual(['connection-live']);
    expect(purged.service_connections).toBe(1);
  });

  it('deletes Idempotency-Key records past their time, keeps the others', async () => {
    const rows = await t.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('user_id', '=', userId)
      .execute();
    expect(rows.map((r) => r.key)).toEqual(['key-live']);
    expect(purged.idempotency_keys).toBe(1);
  });

  it('deletes jobs that ended before the retention; recent, queued and running ones stay', async () => {
    const rows = await t.database.db.selectFrom('jobs').select('id').orderBy('id').execute();
    expect(rows.map((r) => r.id)).toEqual(['done-recent', 'queued-old', 'running-old']);
    expect(purged.jobs).toBe(3);
  });

  it('deletes failed and cancelled deliveries past the retention; delivered, pending and recent ones stay', async () => {
    const rows = await t.database.db.selectFrom('deliveries').select('id').orderBy('id').execute();
    expect(rows.map((r) => r.id)).toEqual(['d-delivered-old', 'd-failed-recent', 'd-pending-old']);
    expect(purged.deliveries).toBe(2);
  });

  it("deletes ended imports' uploads at once and abandoned files after a day; a running import's upload stays", () => {
    const left = [
      'imp-running',
      'imp-done',
      'imp-failed',
      'orphan-old',
      'orphan-new',
      'upload-old.part',
      'upload-new.part',
    ];
    expect(left.filter((name) => existsSync(join(importsDir(), name)))).toEqual([
      'imp-running',
      'orphan-new',
      'upload-new.part',
    ]);
    expect(purged.import_files).toBe(4);
  });

  it('deletes abandoned media temporary files after a day, keeps recent ones', () => {
    expect(existsSync(join(mediaTmp(), 'old.part'))).toBe(false);
    expect(existsSync(join(mediaTmp(), 'new.part'))).toBe(true);
    expect(purged.media_temp_files).toBe(1);
  });

  it('a second run finds nothing more', async () => {
    const again = await purgeExpired(deps(), NOW);
    expect(Object.values(again).reduce((a, b) => a + b, 0)).toBe(0);
  });
});

describe('orphan media files', () => {
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const png = (colour: string) =>
    sharp({ create: { width: 16, height: 8, channels: 3, background: colour } })
      .png()
      .toBuffer();

  /** What an upload has stored when its process dies before the row: the original and its thumbnail. */
  async function leftByACrash(bytes: Buffer): Promise<string> {
    const storage = mediaStorage(t.config);
    const temp = await writeTemp(storage, Readable.from([bytes]));
    await placeShared(storage, temp.path, fileKey(temp.sha256));
    await writeFileAtomic(storage, thumbnailKey(temp.sha256), new Uint8Array(randomBytes(40)));
    return temp.sha256;
  }

  it("removes a crashed upload's files once past the grace period, on the configured store; a medium's files and an upload of the same content stay", async () => {
    const storage = mediaStorage(t.config);
    await clearImportFiles(t); // the files the tests above left, dated by their fixed clock
    const owner = await createTestUser(t.database);
    const token = await tokenFor(t, owner, ['upload_media', 'get_private_scope']);
    const kept = await png('#102030');
    expect((await uploadMedium(t, token, kept, 'kept.png', 'image/png')).statusCode).toBe(201);
    const orphan = await leftByACrash(randomBytes(300));
    // A crash left this content too, and then someone uploaded the same file: it has a row now.
    const reclaimedBytes = await png('#405060');
    const reclaimed = await leftByACrash(reclaimedBytes);
    const upload = await uploadMedium(t, token, reclaimedBytes, 'again.png', 'image/png');
    expect(upload.statusCode).toBe(201);
    // A folder store's half-written file, an object that is none of Waypost's names, and an
    // import upload whose row was never committed.
    const partKey = `${fileKey(orphan)}.abc123.part`;
    const tempPath = (await writeTemp(storage, Readable.from([Buffer.from('half')]))).path;
    await storage.store.upload(partKey, tempPath);
    await storage.store.upload('media/ab/notes.txt', tempPath);
    await storage.store.upload('imports/01ORPHANIMPORT', tempPath);

    const run = (hoursAhead: number) =>
      purgeExpired({ ...deps(), storage: t.config.storage }, Date.now() + hoursAhead * HOUR_MS);
    const all = [
      fileKey(sha(kept)),
      thumbnailKey(sha(kept)),
      fileKey(orphan),
      thumbnailKey(orphan),
      fileKey(reclaimed),
      thumbnailKey(reclaimed),
      partKey,
      'media/ab/notes.txt',
    ].sort();
    // Within the grace period (24 hours) nothing goes: the upload may still be committing.
    const early = await run(23);
    expect(early.orphan_media_files).toBe(0);
    expect(early.import_files).toBe(0);
    expect((await keysUnder(storage, 'media/')).filter((key) => !key.startsWith('media/tmp/'))).toEqual(all);

    const late = await run(25);
    expect(late.orphan_media_files).toBe(3);
    expect(late.import_files).toBe(1);
    const left = [fileKey(sha(kept)), thumbnailKey(sha(kept)), fileKey(reclaimed), thumbnailKey(reclaimed)];
    expect((await keysUnder(storage, 'media/')).filter((key) => !key.startsWith('media/tmp/'))).toEqual(
      [...left, 'media/ab/notes.txt'].sort(),
    );
    expect(await keysUnder(storage, 'imports/')).toEqual([]);
    // (Its token is gone: the run 25 hours ahead purged it. The file is read from the store.)
    expect((await objectBytes(storage, fileKey(reclaimed)))?.equals(reclaimedBytes)).toBe(true);
    expect((await run(25)).orphan_media_files).toBe(0);
    await storage.store.remove('media/ab/notes.txt');
  });
});

describe('the housekeeping job', () => {
  it('is one row per period however many workers schedule it, runs once, and schedules the next period', async () => {
    const db = t.database.db;
    await db.deleteFrom('jobs').execute();
    const hour = 60 * 60 * 1000;
    const at = Math.floor(NOW / hour) * hour + 10 * 60 * 1000;
    await Promise.all([scheduleHousekeeping(db, at, hour), scheduleHousekeeping(db, at + 1000, hour)]);
    const scheduled = await db
      .selectFrom('jobs')
      .select(['id', 'run_at'])
      .where('kind', '=', HOUSEKEEPING_JOB)
      .execute();
    expect(scheduled).toEqual([{ id: `housekeeping-${Math.floor(at / hour)}`, run_at: at }]);

    const runs: Purged[] = [];
    const runner = createJobRunner({
      config: { ...t.config, housekeepingIntervalMinutes: 60 },
      database: t.database,
      now: () => at + 2000,
      onPurged: (purged) => runs.push(purged),
    });
    try {
      expect(await runner.worker.runOnce()).toBe(1);
      expect(await runner.worker.runOnce()).toBe(0);
    } finally {
      await runner.close();
    }
    expect(runs).toHaveLength(1);
    const rows = await db
      .selectFrom('jobs')
      .select(['id', 'status', 'run_at'])
      .where('kind', '=', HOUSEKEEPING_JOB)
      .orderBy('id')
      .execute();
    const period = Math.floor(at / hour);
    expect(rows).toEqual([
      { id: `housekeeping-${period}`, status: 'done', run_at: at },
      { id: `housekeeping-${period + 1}`, status: 'queued', run_at: (period + 1) * hour },
    ]);
  });

  it('counts what it removed in /metrics, by kind', async () => {
    t.app.recordPurged({ sessions: 2, jobs: 5 });
    t.app.recordPurged({ sessions: 1 });
    const response = await t.app.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-for-tests' },
    });
    expect(response.statusCode).toBe(200);
    const lines = response.body.split('\n').filter((line) => line.startsWith('waypost_housekeeping_removed_total{'));
    expect(lines.sort()).toEqual([
      'waypost_housekeeping_removed_total{kind="jobs"} 5',
      'waypost_housekeeping_removed_total{kind="sessions"} 3',
    ]);
  });
});
