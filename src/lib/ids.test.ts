import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { newId, newIds } from './ids.ts';

describe('newIds', () => {
  it('makes ULIDs like newId: 26 Crockford base32 characters, the time first, all distinct', () => {
    const at = Date.UTC(2026, 10, 23, 11, 0, 0, 123);
    const ids = newIds(10_000, at);
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(10_000);
    expect(ids.every((id) => decodeTime(id) === at)).toBe(true);
    expect(newId()).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    // The random part uses the whole alphabet, not a part of it.
    expect(new Set(ids.flatMap((id) => [...id.slice(10)])).size).toBe(32);
  });
});
