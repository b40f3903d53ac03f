// The image worker pool with a stand-in worker (test/media-worker.ts) that can spin forever or
// crash: jobs over their time are killed with their process, no more workers run than allowed,
// and the server's own file reads and password hashing go on while every worker is busy.
import { execFile } from 'node:child_process';
import { scrypt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { BusyError, createMediaJobs, type MediaJobs, type MediaJobsOptions } from './image-workers.ts';

const worker = new URL('../../test/media-worker.ts', import.meta.url);
const limits = { maxPixels: 1000, maxMetadataBytes: 1000 };
const job = (path: string) => ({ op: 'inspect' as const, path, mimeType: 'image/jpeg', timeZone: 'UTC' });

let jobs: MediaJobs | undefined;
const pool = (options: Partial<MediaJobsOptions>) => {
  jobs = createMediaJobs({ limits, concurrency: 1, timeoutMs: 10_000, worker, ...options });
  return jobs;
};
afterEach(() => jobs?.close());

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 3000; i += 1) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('gave up waiting');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether a promise has settled, checked after the current turn. */
function watch(promise: Promise<unknown>) {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

describe('image jobs', () => {
  it('answer through a worker process, which is kept for the next job', async () => {
    const jobs = pool({});
    const first = (await jobs.run(job('a'))) as unknown as number;
    expect(first).not.toBe(process.pid);
    expect(await jobs.run(job('b'))).toBe(first);
    expect(jobs.started.inspect).toBe(2);
  });

  it('a job over its time is killed with its process; the next job gets a new one', async () => {
    const jobs = pool({ timeoutMs: 300 });
    const spinning = jobs.run(job('spin'));
    const pid = await until(() => jobs.running()[0]);
    await expect(spinning).rejects.toMatchObject({
      code: 'media_processing_timeout',
      message: 'Processing the file took longer than the limit of 300 ms (WAYPOST_MEDIA_TIMEOUT_MS).',
    });
    await until(() => (alive(pid) ? undefined : true));
    const next = (await jobs.run(job('ok'))) as unknown as number;
    expect(next).not.toBe(pid);
  });

  it('runs at most `concurrency` workers; while they spin, file reads and password hashing go on', async () => {
    const jobs = pool({ concurrency: 2 });
    const spinning = [jobs.run(job('spin')), jobs.run(job('spin')), jobs.run(job('spin'))].map(watch);
    await until(() => (jobs.running().length === 2 ? true : undefined));
    expect(await readFile(new URL(import.meta.url), 'utf8')).toContain('file reads and password hashing');
    const key = (await promisify(scrypt)('password', 'salt', 32)) as Buffer;
    expect(key.length).toBe(32);
    expect(spinning.map((state) => state.settled)).toEqual([false, false, false]);
    expect(jobs.running()).toHaveLength(2);
    const pids = jobs.running();
    jobs.close();
    await until(() => (pids.some(alive) ? undefined : true));
  });

  it('a worker that dies fails its job, and the next job gets a new one', async () => {
    const jobs = pool({});
    await expect(jobs.run(job('crash'))).rejects.toMatchObject({
      code: 'media_processing_failed',
      message: 'The file could not be processed: the image worker stopped on it.',
    });
    expect(typeof (await jobs.run(job('ok')))).toBe('number');
  });

  it('a worker that cannot start fails the job it was started for, and no other is started for it', async () => {
    const jobs = pool({ worker: new URL('file:///nonexistent/media-worker.ts') });
    await expect(jobs.run(job('a'))).rejects.toMatchObject({ code: 'media_processing_failed' });
    expect(jobs.workers()).toEqual([]);
  });

  it('refuses a job when the queue is full, and every job once closed', async () => {
    const jobs = pool({ maxQueue: 1 });
    const spinning = watch(jobs.run(job('spin')));
    await until(() => jobs.running()[0]);
    const queued = jobs.run(job('ok'));
    await expect(jobs.run(job('ok'))).rejects.toBeInstanceOf(BusyError);
    jobs.close();
    await expect(queued).rejects.toBeInstanceOf(BusyError);
    await expect(jobs.run(job('ok'))).rejects.toBeInstanceOf(BusyError);
    await until(() => (spinning.settled ? true : undefined));
  });

  it('a job keeps a process running until it is answered; idle workers never do', async () => {
    // A process with nothing else to do: it must wait for the answer, print it, then exit by itself.
    const script = [
      `import { createMediaJobs } from ${JSON.stringify(new URL('./image-workers.ts', import.meta.url).href)};`,
      `const jobs = createMediaJobs({ limits: { maxPixels: 1, maxMetadataBytes: 1 }, concurrency: 1, timeoutMs: 10000, worker: new URL(${JSON.stringify(worker.href)}) });`,
      "const pid = await jobs.run({ op: 'inspect', path: 'a', mimeType: 'image/jpeg', timeZone: 'UTC' });",
      'console.log(typeof pid);',
    ].join('\n');
    const output = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 30_000,
    });
    expect(output.stdout).toBe('number\n');
  });
});
