import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { newId, newIds } from './ids.ts';

describe('newId', () => {
  it('is a ULID: 26 characters of Crockford base32, the time first', () => {
    const before = Date.now();
    const id = newId();
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isValid(id)).toBe(true);
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(id)).toBeLessThanOrEqual(Date.now());
  });

  it('never repeats, and its random part covers every character', () => {
    const ids = Array.from({ length: 20_000 }, newId);
    expect(new Set(ids).size).toBe(ids.length);
    const seen = new Set(ids.flatMap((id) => [...id.slice(10)]));
    expect(seen.size).toBe(32);
  });
});

describe('newIds', () => {
  it('makes ULIDs like newId: 26 Crockford base32 characters, the time first, all distinct', () => {
    const at = Date.UTC(2026, 10, 23, 11, 0, 0, 123);
    const ids = newIds(10_000, at);
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(10_000);
    expect(ids.every((id) => decodeTime(id) === at)).toBe(true);
    // The random part uses the whole alphabet, not a part of it.
    expect(new Set(ids.flatMap((id) => [...id.slice(10)])).size).toBe(32);
  });
});
