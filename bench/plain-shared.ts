// What the hand-written baselines share: the plain ones (bench/plain-server.ts on SQLite,
// bench/plain-server-pg.ts on PostgreSQL) and the old ones (bench/baseline-server.ts,
// bench/baseline-server-pg.ts). One request loop: the routing, the reading of the body, the
// token check, the reading of a request, the shape of an answer, the cursor, ids, the writing
// of an answer and of an error. Each server gives it a `Store`: its queries, nothing more.
//
// A store's query answers at once (better-sqlite3) or later (pg): `then` goes on synchronously
// for the first, so the SQLite servers do no promise work the driver does not ask for.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

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
/** A point to store: time in ms, then the place and what the sender measured. */
export type Point = [
  time: number,
  lat: number,
  lon: number,
  alt: unknown,
  accuracy: unknown,
  speed: unknown,
  heading: unknown,
];
/** A value now (better-sqlite3) or later (pg). */
export type Maybe<T> = T | Promise<T>;

/** What a server's database does for the loop. */
export interface Store {
  /** The person an access token (its SHA-256, hex) stands for, if it is valid and holds `permission`. */
  caller(hash: string, permission: string): Maybe<Caller | undefined>;
  /** The key a page of `count` items continues after, read from the query; undefined answers 400. */
  key(url: URL, count: number): [number, string] | undefined;
  /** Up to `limit` private items of `kind`, newest first, before `key`. */
  page(kind: Kind, userId: string, key: [number, string], limit: number): Maybe<Row[]>;
  /** The delivery rows of these posts (`post_id`, `updated_at` in ms and the fields answered). */
  deliveries(userId: string, postIds: string[]): Maybe<Record<string, unknown>[]>;
  /** Stores a batch of points durably; the number stored (duplicates are dropped). */
  points(userId: string, source: string | null, points: Point[]): Maybe<number>;
  /** A private post and, in the same transaction, a delivery and a job for each service of its groups. */
  post(userId: string, text: string, groups: string[]): Maybe<{ id: string; now: number; services: string[] }>;
  /** An Overland tracker's owner and token hash; without it `POST /ingest/<id>` is not served. */
  tracker?(id: string): Maybe<{ user_id: string; token_hash: string } | undefined>;
}

export function then<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** The plain token table's check: not expired, and the permission among the token's. */
export function plainCaller(
  row: { user_id: string; permissions: string; expires_at: number; username: string } | undefined,
  permission: string,
): Caller | undefined {
  if (!row || row.expires_at <= Date.now() || !row.permissions.split(' ').includes(permission)) return undefined;
  return { userId: row.user_id, username: row.username };
}

/** The check on Waypost's tables: the OAuth library's JSON of the token and of its grant both hold the permission. */
export function oauthCaller(
  row: { user_id: string; expires_at: number | null; token: string; grant: string; username: string } | undefined,
  permission: string,
): Caller | undefined {
  if (!row || (row.expires_at !== null && row.expires_at <= Date.now())) return undefined;
  const scopes = String((JSON.parse(row.token) as { scope?: string }).scope ?? '').split(' ');
  const granted = String((JSON.parse(row.grant) as { openid?: { scope?: string } }).openid?.scope ?? '').split(' ');
  return scopes.includes(permission) && granted.includes(permission)
    ? { userId: row.user_id, username: row.username }
    : undefined;
}

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

/** The plain baselines' key: as `keyOf`, for 1 to 100 items a page. */
export function plainKey(url: URL, count: number): [number, string] | undefined {
  const key = keyOf(url);
  return key && count >= 1 && count <= 100 ? key : undefined;
}

/** The key a page continues after: a cursor of ours, or `until_time` (seconds); undefined if neither reads. */
function keyOf(url: URL): [number, string] | undefined {
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

const fail = (response: ServerResponse) => send(response, 500, '{"status":500}');

/** `Authorization: Bearer`, the SHA-256 of the token, the store's check. */
function authorize(store: Store, request: IncomingMessage, permission: string): Maybe<Caller | undefined> {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) return undefined;
  return store.caller(createHash('sha256').update(header.slice(7)).digest('hex'), permission);
}

/** A keyset page with one row more to know whether a next page exists, and a `Link` carrying the cursor. */
function page(store: Store, kind: Kind, request: IncomingMessage, response: ServerResponse, url: URL) {
  return then(authorize(store, request, 'get_private_scope'), (caller) => {
    if (!caller) return send(response, 401, '{"status":401}');
    const count = Number(url.searchParams.get('count') ?? 50);
    const key = store.key(url, count);
    if (!key) return send(response, 400, '{"status":400}');
    return then(store.page(kind, caller.userId, key, count + 1), (rows) => {
      const more = rows.length > count;
      if (more) rows.pop();
      const deliveries =
        kind === 'posts' && rows.length > 0
          ? store.deliveries(
              caller.userId,
              rows.map((r) => r.id),
            )
          : [];
      return then(deliveries, (found) => {
        const byPost = new Map<unknown, unknown[]>();
        for (const { post_id, updated_at, ...rest } of found) {
          byPost.set(post_id, [...(byPost.get(post_id) ?? []), { ...rest, updated_at: seconds(updated_at as number) }]);
        }
        const headers: Record<string, string> = {};
        const last = rows.at(-1);
        if (more && last) {
          const cursor = Buffer.from(JSON.stringify([last.time, last.id])).toString('base64url');
          headers.link = `<http://127.0.0.1/${kind}/private?count=${count}&cursor=${cursor}>; rel="next"`;
        }
        send(response, 200, JSON.stringify(rows.map((row) => shape(kind, row, caller, byPost))), headers);
      });
    });
  });
}

/** `POST /locations`: up to 1000 points, all valid or none stored; `{stored, duplicates}` after the commit. */
function addLocations(store: Store, request: IncomingMessage, response: ServerResponse, body: string) {
  return then(authorize(store, request, 'write_locations'), (caller) => {
    if (!caller) return send(response, 401, '{"status":401}');
    const input = JSON.parse(body) as Record<string, number | undefined>[];
    if (!Array.isArray(input) || input.length > 1000) return send(response, 400, '{"status":400}');
    const points: Point[] = [];
    for (const p of input) {
      if (!(Math.abs(p.lat ?? NaN) <= 90 && Math.abs(p.lon ?? NaN) <= 180 && Number.isFinite(p.time))) {
        return send(response, 400, '{"status":400}');
      }
      points.push([
        Math.round(p.time! * 1000),
        p.lat!,
        p.lon!,
        p.alt ?? null,
        p.accuracy ?? null,
        p.speed ?? null,
        p.heading ?? null,
      ]);
    }
    return then(store.points(caller.userId, null, points), (stored) =>
      send(response, 200, JSON.stringify({ stored, duplicates: points.length - stored })),
    );
  });
}

interface Feature {
  geometry?: { type?: string; coordinates?: number[] };
  properties?: { timestamp?: string; altitude?: number; horizontal_accuracy?: number; speed?: number; course?: number };
}

/** An Overland batch: Point features stored, others skipped; `{"result":"ok"}` after the commit. */
function ingest(store: Store, request: IncomingMessage, response: ServerResponse, id: string, body: string) {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  return then(store.tracker!(id), (tracker) => {
    const hash = createHash('sha256').update(token).digest();
    if (!tracker || !timingSafeEqual(hash, Buffer.from(tracker.token_hash, 'hex'))) return send(response, 401, '{}');
    let features: Feature[];
    try {
      features = (JSON.parse(body) as { locations?: Feature[] }).locations ?? [];
    } catch {
      return send(response, 400, '{"status":400}');
    }
    const points: Point[] = [];
    for (const { geometry, properties = {} } of features) {
      if (geometry?.type !== 'Point' || !geometry.coordinates) continue;
      const [lon, lat] = geometry.coordinates;
      const time = Date.parse(properties.timestamp ?? '');
      if (!(Math.abs(lat ?? NaN) <= 90 && Math.abs(lon ?? NaN) <= 180 && Number.isFinite(time))) continue;
      const { altitude, horizontal_accuracy, speed, course } = properties;
      points.push([time, lat!, lon!, altitude ?? null, horizontal_accuracy ?? null, speed ?? null, course ?? null]);
    }
    return then(store.points(tracker.user_id, id, points), () => send(response, 200, '{"result":"ok"}'));
  });
}

/** `POST /posts`: a private post queued for the services of its groups; 202 with the post. */
function createPost(store: Store, request: IncomingMessage, response: ServerResponse, body: string) {
  return then(authorize(store, request, 'create_post'), (caller) => {
    if (!caller) return send(response, 401, '{"status":401}');
    const input = JSON.parse(body) as { text?: unknown; groups?: unknown };
    const { text, groups } = input;
    if (typeof text !== 'string' || !Array.isArray(groups)) return send(response, 400, '{"status":400}');
    return then(store.post(caller.userId, text, groups as string[]), ({ id, now, services }) => {
      const post = {
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
      send(response, 202, JSON.stringify(post), { location: `/posts/id/${id}` });
    });
  });
}

/** Runs a handler; what it throws, now or later, is answered 500. */
function guarded(response: ServerResponse, handle: () => Maybe<void>) {
  try {
    const done = handle();
    if (done instanceof Promise) done.catch(() => fail(response));
  } catch {
    fail(response);
  }
}

/**
 * Serves the benchmarks' requests from `store` on a free port of 127.0.0.1, prints `{port}` and
 * serves until killed. A GET is answered at once; any other request once its body is read.
 */
export function serve(store: Store): void {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const [, first, second] = url.pathname.split('/');
    if (request.method === 'GET') {
      if (second === 'private' && (first === 'locations' || first === 'posts' || first === 'media')) {
        return guarded(response, () => page(store, first, request, response, url));
      }
      return send(response, 404, '{"status":404}');
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () =>
      guarded(response, () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (request.method === 'POST') {
          if (url.pathname === '/locations') return addLocations(store, request, response, body);
          if (url.pathname === '/posts') return createPost(store, request, response, body);
          if (first === 'ingest' && second && store.tracker) return ingest(store, request, response, second, body);
        }
        send(response, 404, '{"status":404}');
      }),
    );
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
  });
  // Exit cleanly when the benchmark stops it (and let --cpu-prof write its profile).
  process.once('SIGTERM', () => process.exit(0));
}
