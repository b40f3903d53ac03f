import { describe, expect, it } from 'vitest';
import { lend } from './batches.ts';

async function* batches(...all: number[][]) {
  for (const batch of all) yield* lend(batch);
}

describe('lend', () => {
  it('hands each batch out whole and empties it when the next is asked for', async () => {
    const first = [1, 2, 3];
    const second = [4, 5];
    const reader = batches(first, second);
    const a = await reader.next();
    expect(a.value).toEqual([1, 2, 3]);
    expect(first).toEqual([1, 2, 3]);
    const b = await reader.next();
    expect(first).toEqual([]);
    expect(b.value).toEqual([4, 5]);
    expect((await reader.next()).done).toBe(true);
    expect(second).toEqual([]);
  });

  it('empties the batch a consumer stops at', async () => {
    const first = [1, 2, 3];
    const second = [4, 5];
    for await (const batch of batches(first, second)) {
      expect(batch).toEqual([1, 2, 3]);
      break;
    }
    expect(first).toEqual([]);
    expect(second).toEqual([4, 5]);
  });
});
