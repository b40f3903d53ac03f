// What the plain baselines (bench/plain-server.ts on SQLite, bench/plain-server-pg.ts on
// PostgreSQL) share: the answer's shape, the cursor, ids and the writing of an answer.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export interface Caller {
  userId: string;
  username: string;
}

export const seconds = (ms: number) => ms / 1000;

export const COLUMNS = {
  locations: 'id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source',
  posts: 'id, scope, time, created_at, text, media_ids, lat, lon, source',
  media:
    'id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration, lat, lon, caption, has_thumbnail, source',
};
export type Kind = keyof typeof COLUMNS;
export type Row = Record<string, unknown> & { id: string; time: number; created_at: number };

export function shape(kind: Kind, row: Row, caller: Caller, more: Map<unknown, unknown[]>): unknown {
  const common = { id: row.id, username: caller.username, scope: row.scope, time: seconds(row.time) };
  if (kind === 'locations') {
    const { lat, lon, alt, accuracy, speed, heading, source } = row;
    return { ...common, lat, lon, alt, accuracy, speed, heading, source, created_at: seconds(row.created_at) };
  }
  const location = row.lat === null ? null : { lat: row.lat, lon: row.lon };
  if (kind === 'posts') {
    return {
      ...common,
      created_at: seconds(row.created_at),
      text: row.text,
      media_ids: JSON.parse(row.media_ids as string) as unknown,
      location,
      source: row.source,
      deliveries: more.get(row.id) ?? [],
    };
  }
  const { kind: mediumKind, mime_type, size, sha256, width, height, duration, caption } = row;
  return {
    ...common,
    kind: mediumKind,
    mime_type,
    size,
    sha256,
    width,
    height,
    duration,
    location,
    caption,
    url: `http://127.0.0.1/media/id/${row.id}/file`,
    thumbnail_url: row.has_thumbnail ? `http://127.0.0.1/media/id/${row.id}/thumbnail` : null,
    created_at: seconds(row.created_at),
  };
}

/** The key a page continues after: a cursor of ours, or `until_time` (seconds); undefined if neither reads. */
export function keyOf(url: URL): [number, string] | undefined {
  const cursor = url.searchParams.get('cursor');
  if (cursor !== null) {
    try {
      const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (Array.isArray(key) && Number.isSafeInteger(key[0]) && typeof key[1] === 'string') {
        return [key[0] as number, key[1]];
      }
    } catch {
      // not one of ours
    }
    return undefined;
  }
  const until = Math.round(Number(url.searchParams.get('until_time') ?? Date.now() / 1000 + 1) * 1000);
  return Number.isSafeInteger(until) ? [until, ''] : undefined;
}

export function postAnswer(id: string, caller: Caller, text: string, now: number, services: string[]) {
  return {
    id,
    username: caller.username,
    text,
    scope: 'private',
    time: seconds(now),
    created_at: seconds(now),
    media_ids: [],
    location: null,
    source: null,
    deliveries: services.map((service_id) => ({
      service_id,
      status: 'pending',
      attempts: 0,
      remote_url: null,
      last_error: null,
      updated_at: seconds(now),
    })),
  };
}

// A ULID as Waypost makes them: 48 bits of time, 80 random bits from a buffered source.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let pool = randomBytes(0);
let offset = 0;
export function newId(): string {
  if (offset + 10 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  let time = Date.now();
  let out = '';
  for (let i = 0; i < 10; i += 1) {
    out = ALPHABET[time % 32]! + out;
    time = Math.floor(time / 32);
  }
  for (let i = 0; i < 16; i += 1) out += ALPHABET[(pool[offset + (i >> 1)]! >> (i & 1 ? 0 : 4)) & 31]!;
  offset += 10;
  return out;
}

export function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    ...headers,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
