import { describe, expect, it } from 'vitest';
import { oneAtATime } from './one-at-a-time.ts';

/** A run that ends when the test says so, recording when it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const ended = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  const work = () => {
    log.push(`start ${name}`);
    return ended;
  };
  return { work, open, fail };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('oneAtATime', () => {
  it('gives the callers who arrive during a run one shared run after it', async () => {
    const run = oneAtATime<string>();
    const log: string[] = [];
    const first = gate(log, 'first');
    const second = gate(log, 'second');
    const third = gate(log, 'third');
    const a = run('alice', first.work);
    log.push('b calls');
    const b = run('alice', second.work);
    log.push('c calls');
    const c = run('alice', third.work);
    await settled();
    expect(log).toEqual(['start first', 'b calls', 'c calls']);
    first.open();
    await a;
    await settled();
    // b's run starts after a's ended; c shares it, so c's own work never runs.
    expect(log).toEqual(['start first', 'b calls', 'c calls', 'start second']);
    second.open();
    await Promise.all([b, c]);
    expect(log).not.toContain('start third');
  });

  it('starts a new run for a caller who arrives while the shared run is going', async () => {
    const run = oneAtATime<string>();
    const log: string[] = [];
    const first = gate(log, 'first');
    const second = gate(log, 'second');
    const third = gate(log, 'third');
    const a = run('alice', first.work);
    const b = run('alice', second.work);
    first.open();
    await a;
    await settled();
    expect(log).toEqual(['start first', 'start second']);
    // The second run has read what it reads already: this caller needs a run of its own.
    const c = run('alice', third.work);
    await settled();
    expect(log).toEqual(['start first', 'start second']);
    second.open();
    await b;
    await settled();
    expect(log).toEqual(['start first', 'start second', 'start third']);
    third.open();
    await c;
  });

  it('runs different keys at the same time', async () => {
    const run = oneAtATime<string>();
    const log: string[] = [];
    const alice = gate(log, 'alice');
    const bob = gate(log, 'bob');
    const a = run('alice', alice.work);
    const b = run('bob', bob.work);
    await settled();
    expect(log).toEqual(['start alice', 'start bob']);
    alice.open();
    bob.open();
    await Promise.all([a, b]);
  });

  it('fails a failed run for the callers who shared it, and runs the next all the same', async () => {
    const run = oneAtATime<string>();
    const log: string[] = [];
    const first = gate(log, 'first');
    const second = gate(log, 'second');
    const a = run('alice', first.work);
    const b = run('alice', second.work);
    first.fail(new Error('the first run failed'));
    await expect(a).rejects.toThrow('the first run failed');
    second.fail(new Error('the second run failed'));
    await expect(b).rejects.toThrow('the second run failed');
    expect(log).toEqual(['start first', 'start second']);
    // The line is free again: a later call runs at once.
    const third = gate(log, 'third');
    const c = run('alice', third.work);
    await settled();
    expect(log).toEqual(['start first', 'start second', 'start third']);
    third.open();
    await c;
  });

  it('fails a run whose work throws before it returns a promise, for that caller only', async () => {
    const run = oneAtATime<string>();
    await expect(
      run('alice', () => {
        throw new Error('thrown at once');
      }),
    ).rejects.toThrow('thrown at once');
    await expect(run('alice', async () => {})).resolves.toBeUndefined();
  });
});
