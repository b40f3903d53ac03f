// Collection cursors (docs/api.md "Collections"): the last key of a page, `[time_ms, id]`, as
// base64url, then a dot and an HMAC-SHA256 of it (first 16 bytes) under a key derived from the
// server's secret key. A client cannot make one up: a cursor this server did not make is 400
// `invalid_cursor` before it reaches a query. Any server with the same secret key reads the
// cursors of the others.
import { createHmac, createSecretKey } from 'node:crypto';
import { deriveKey, safeEqual } from '../lib/crypto.ts';
import { AppError } from './errors.ts';

/** Where a page ended: the keyset position the next page continues after. */
export interface CursorKey {
  time: number;
  id: string;
}

export interface Cursors {
  encode(key: CursorKey): string;
  /** The key of a cursor this server made; anything else throws 400 `invalid_cursor`. */
  decode(cursor: string): CursorKey;
}

/** Longer than any cursor made here (an id is at most 64 characters). */
const CURSOR_MAX = 200;
const MAC_BYTES = 16;
const SHAPE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

export function invalidCursor(): AppError {
  return new AppError('invalid_cursor', 'The cursor is not one this server made; take it from the Link header.', {
    errors: [{ path: 'querystring/cursor', message: 'is not a cursor this server made' }],
  });
}

export function cursorsFor(secretKey: Buffer): Cursors {
  // A KeyObject made once: given the bytes, createHmac imports the key anew on every call,
  // several times the cost of the MAC itself (every page with a next page makes a cursor).
  const key = createSecretKey(deriveKey(secretKey, 'collection-cursors'));
  const mac = (payload: string) =>
    createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES).toString('base64url');
  return {
    encode({ time, id }) {
      const payload = Buffer.from(JSON.stringify([time, id])).toString('base64url');
      return `${payload}.${mac(payload)}`;
    },
    decode(cursor) {
      const parts = cursor.length <= CURSOR_MAX ? SHAPE.exec(cursor) : null;
      if (!parts || !safeEqual(mac(parts[1]!), parts[2]!)) throw invalidCursor();
      // Made here, so well formed; checked all the same, as a key that reaches SQL.
      const key: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
      const [time, id] = Array.isArray(key) ? (key as unknown[]) : [];
      if (!Number.isSafeInteger(time) || typeof id !== 'string' || id.length === 0 || id.length > 64) {
        throw invalidCursor();
      }
      return { time: time as number, id };
    },
  };
}
