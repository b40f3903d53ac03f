// The Idempotency-Key header (IETF draft-ietf-httpapi-idempotency-key-header): a retried
// request with the same key and body gets the first response again instead of doing the work
// twice; the same key with another body is 422; a retry while the first is still running is
// 409. Records live in the database, so any API process can answer (docs/design.md "Growing past
// one machine"), and the response is stored in the same transaction as the work it describes.
import { createHash } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { AppError } from './errors.ts';
import { nowMs } from '../lib/time.ts';
import {
  deletePendingKey,
  findKey,
  insertKey,
  replaceKey,
  storeResponse,
  type IdempotencyRow,
} from './idempotency.repo.ts';

/** How long a key is remembered (the draft's example: 24 hours). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** A first request still unfinished after this long died with its process; the key is free again. */
export const IN_FLIGHT_MS = 60 * 1000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Stores the response inside the caller's transaction. */
export type Remember = (trx: Db, response: StoredResponse) => Promise<void>;

export interface IdempotencyRequest {
  userId: string;
  /** The operation, e.g. `POST /posts`: the same key may be used for different operations. */
  scope: string;
  /** The header's value, absent when the client sent none. */
  key: string | undefined;
  body: unknown;
}

/** JSON with object keys sorted, so the same body always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprint(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

/** The draft sends the key as a structured-field string ("..."); a bare token is accepted too. */
function normalizeKey(raw: string): string {
  return raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
}

const inFlight = () =>
  new AppError('request_in_flight', 'A request with this Idempotency-Key is still being processed; retry later.');
const mismatch = () =>
  new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.');

/** Claims the key; returns the stored response when this is a repeat of a finished request. */
async function claim(db: Db, row: IdempotencyRow): Promise<StoredResponse | undefined> {
  for (let tries = 0; tries < 3; tries += 1) {
    try {
      await insertKey(db, row);
      return undefined;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const seen = await findKey(db, row);
    if (!seen) continue; // deleted meanwhile: try again
    const expired = seen.expires_at <= row.created_at;
    const abandoned = seen.response === null && seen.created_at + IN_FLIGHT_MS <= row.created_at;
    if (expired || (abandoned && seen.fingerprint === row.fingerprint)) {
      if (await replaceKey(db, seen, row)) return undefined;
      continue;
    }
    if (seen.fingerprint !== row.fingerprint) throw mismatch();
    if (seen.response === null) throw inFlight();
    return JSON.parse(seen.response) as StoredResponse;
  }
  throw inFlight();
}

/**
 * Runs `work` once per key. `work` must call `remember` inside the transaction that commits
 * its effect; if it throws, the key is released so a corrected request may use it.
 */
export async function idempotent(
  db: Db,
  request: IdempotencyRequest,
  work: (remember: Remember) => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (request.key === undefined) return work(async () => {});
  const now = nowMs();
  const row: IdempotencyRow = {
    user_id: request.userId,
    scope: request.scope,
    key: normalizeKey(request.key),
    fingerprint: fingerprint(request.body),
    response: null,
    created_at: now,
    expires_at: now + KEY_TTL_MS,
  };
  const stored = await claim(db, row);
  if (stored) return { ...stored, headers: { ...stored.headers, 'idempotent-replayed': 'true' } };
  try {
    return await work((trx, response) => storeResponse(trx, row, JSON.stringify(response)));
  } catch (error) {
    await deletePendingKey(db, row);
    throw error;
  }
}
