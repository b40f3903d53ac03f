// The plain baseline of `npm run bench:requests` and `npm run bench:ingest` on SQLite: the
// fastest honest server for the same requests that we know how to write, by hand with node:http
// and better-sqlite3, on a schema of its own (bench/plain-schema.ts: a plain token table, the
// items with only the indexes its queries use). The SQLite file is argv[2]. Prints `{port}` and
// serves until killed.
//
// What it does, as Waypost does: reads `Authorization: Bearer`, looks the token's SHA-256 up in
// its token table with the person's name (one indexed query a request, no cache, so a deleted
// token is refused at once), checks expiry and the permission; pages by keyset (`time`, `id`)
// from `until_time` or a cursor, with one row more to know whether a next page exists and a
// `Link` header carrying the cursor; serialises the same fields; stores points of POST
// /locations and of an Overland batch durably (WAL, synchronous=FULL: acknowledged after the
// commit), duplicates dropped by the unique index, the batches that arrive during a commit
// sharing the next one (as Waypost's do); writes a post with its delivery and job rows in one
// transaction.
// What it does not do: validate beyond what the benchmark sends, sign cursors, negotiate
// formats, write logs, metrics, security headers or request ids, keep a location history or
// counters. Those are Waypost's cost to carry.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import SQLite from 'better-sqlite3';
import {
  COLUMNS,
  keyOf,
  newId,
  postAnswer,
  seconds,
  send,
  shape,
  type Caller,
  type Kind,
  type Row,
} from './plain-shared.ts';

const db = new SQLite(process.argv[2] ?? '');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');

const tokenQuery = db.prepare<[string], { user_id: string; permissions: string; expires_at: number; username: string }>(
  `select t.user_id, t.permissions, t.expires_at, u.username from tokens t join users u on u.id = t.user_id
   where t.hash = ?`,
);

function authorize(request: IncomingMessage, permission: string): Caller | undefined {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) return undefined;
  const row = tokenQuery.get(createHash('sha256').update(header.slice(7)).digest('hex'));
  if (!row || row.expires_at <= Date.now() || !row.permissions.split(' ').includes(permission)) return undefined;
  return { userId: row.user_id, username: row.username };
}

// Keyset pages, newest first, after a key: `until_time` is the key (time, '').
const pages = Object.fromEntries(
  Object.entries(COLUMNS).map(([kind, columns]) => [
    kind,
    db.prepare(
      `select ${columns} from ${kind} where user_id = ? and scope = 'private' and (time, id) < (?, ?)
       order by time desc, id desc limit ?`,
    ),
  ]),
) as Record<Kind, SQLite.Statement>;

const deliveriesQuery = (n: number) =>
  db.prepare(
    `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
     where user_id = ? and post_id in (${Array(n).fill('?').join(',')})`,
  );
const deliveriesOfPage = deliveriesQuery(50);

function deliveriesOf(userId: string, postIds: string[]) {
  const statement = postIds.length === 50 ? deliveriesOfPage : deliveriesQuery(postIds.length);
  const rows = statement.all(userId, ...postIds) as Record<string, unknown>[];
  const byPost = new Map<unknown, unknown[]>();
  for (const { post_id, updated_at, ...rest } of rows) {
    byPost.set(post_id, [...(byPost.get(post_id) ?? []), { ...rest, updated_at: seconds(updated_at as number) }]);
  }
  return byPost;
}

function page(kind: Kind, request: IncomingMessage, response: ServerResponse, url: URL) {
  const caller = authorize(request, 'get_private_scope');
  if (!caller) return send(response, 401, '{"status":401}');
  const count = Number(url.searchParams.get('count') ?? 50);
  const key = keyOf(url);
  if (!key || !(count >= 1 && count <= 100)) return send(response, 400, '{"status":400}');
  const rows = pages[kind].all(caller.userId, key[0], key[1], count + 1) as Row[];
  const more = rows.length > count;
  if (more) rows.pop();
  const deliveries =
    kind === 'posts' && rows.length > 0
      ? deliveriesOf(
          caller.userId,
          rows.map((r) => r.id),
        )
      : new Map<unknown, unknown[]>();
  const headers: Record<string, string> = {};
  const last = rows.at(-1);
  if (more && last) {
    const cursor = Buffer.from(JSON.stringify([last.time, last.id])).toString('base64url');
    headers.link = `<http://127.0.0.1/${kind}/private?count=${count}&cursor=${cursor}>; rel="next"`;
  }
  send(response, 200, JSON.stringify(rows.map((row) => shape(kind, row, caller, deliveries))), headers);
}

// Points: one prepared statement of CHUNK rows for the bulk of a batch (the fastest way found
// to feed better-sqlite3), one of a row for what is left over.
type Point = [
  time: number,
  lat: number,
  lon: number,
  alt: unknown,
  accuracy: unknown,
  speed: unknown,
  heading: unknown,
];
const CHUNK = 100;
const pointsInsert = (rows: number) =>
  db.prepare(
    `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
     values ${Array(rows).fill("(?, ?, 'private', ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ')}
     on conflict (user_id, time, lat, lon) do nothing`,
  );
const insertChunk = pointsInsert(CHUNK);
const insertOne = pointsInsert(1);

interface Waiting {
  userId: string;
  source: string | null;
  points: Point[];
  done: (stored: number) => void;
}
let waiting: Waiting[] = [];

/** Every batch that arrived since the last commit, in one durable transaction. */
const commitWaiting = db.transaction((group: Waiting[]) => {
  const now = Date.now();
  return group.map(({ userId, source, points }) => {
    const values = (p: Point) => [userId, newId(), p[0], now, p[1], p[2], p[3], p[4], p[5], p[6], source];
    let stored = 0;
    let i = 0;
    for (; i + CHUNK <= points.length; i += CHUNK) {
      stored += insertChunk.run(points.slice(i, i + CHUNK).flatMap(values)).changes;
    }
    for (; i < points.length; i++) stored += insertOne.run(values(points[i]!)).changes;
    return stored;
  });
});

/** Queues a batch for the next commit; `done` is called after that commit, with the rows stored. */
function storePoints(batch: Waiting) {
  waiting.push(batch);
  if (waiting.length > 1) return;
  setImmediate(() => {
    const group = waiting;
    waiting = [];
    const stored = commitWaiting(group);
    group.forEach((batch, i) => batch.done(stored[i]!));
  });
}

function addLocations(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = authorize(request, 'write_locations');
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
  storePoints({
    userId: caller.userId,
    source: null,
    points,
    done: (stored) => send(response, 200, JSON.stringify({ stored, duplicates: points.length - stored })),
  });
}

interface Feature {
  geometry?: { type?: string; coordinates?: number[] };
  properties?: { timestamp?: string; altitude?: number; horizontal_accuracy?: number; speed?: number; course?: number };
}
const findTracker = db.prepare<[string], { user_id: string; token_hash: string }>(
  'select user_id, token_hash from trackers where id = ?',
);

/** An Overland batch: Point features stored, others skipped; `{"result":"ok"}` after the commit. */
function ingest(request: IncomingMessage, response: ServerResponse, id: string, body: string) {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const tracker = findTracker.get(id);
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
  storePoints({ userId: tracker.user_id, source: id, points, done: () => send(response, 200, '{"result":"ok"}') });
}

const servicesOfGroup = db.prepare<[string, string], { service_id: string }>(
  'select service_id from group_members where user_id = ? and group_id = ?',
);
const insertPost = db.prepare(
  `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
   values (?, ?, 'private', ?, ?, ?, '[]', null, null, null)`,
);
const insertDelivery = db.prepare(
  `insert into deliveries (id, user_id, post_id, service_id, status, attempts, remote_url, last_error, created_at, updated_at)
   values (?, ?, ?, ?, 'pending', 0, null, null, ?, ?)`,
);
const insertJob = db.prepare(
  `insert into jobs (id, kind, ref, payload, status, attempts, max_attempts, run_at, locked_by, locked_until, last_error, created_at, updated_at)
   values (?, 'delivery', ?, ?, 'queued', 0, 8, ?, null, null, null, ?, ?)`,
);
const writePost = db.transaction((userId: string, text: string, groups: string[]) => {
  const now = Date.now();
  const id = newId();
  insertPost.run(userId, id, now, now, text);
  const services = new Set<string>();
  for (const group of groups) for (const { service_id } of servicesOfGroup.all(userId, group)) services.add(service_id);
  for (const service of services) {
    const delivery = newId();
    insertDelivery.run(delivery, userId, id, service, now, now);
    insertJob.run(newId(), delivery, JSON.stringify({ delivery_id: delivery }), now, now, now);
  }
  return { id, now, services: [...services] };
});

function createPost(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = authorize(request, 'create_post');
  if (!caller) return send(response, 401, '{"status":401}');
  const input = JSON.parse(body) as { text?: unknown; groups?: unknown };
  if (typeof input.text !== 'string' || !Array.isArray(input.groups)) return send(response, 400, '{"status":400}');
  const { id, now, services } = writePost(caller.userId, input.text, input.groups as string[]);
  send(response, 202, JSON.stringify(postAnswer(id, caller, input.text, now, services)), {
    location: `/posts/id/${id}`,
  });
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const [, first, second] = url.pathname.split('/');
  if (request.method === 'GET') {
    if (second === 'private' && (first === 'locations' || first === 'posts' || first === 'media')) {
      return page(first, request, response, url);
    }
    return send(response, 404, '{"status":404}');
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (url.pathname === '/locations') return addLocations(request, response, body);
    if (url.pathname === '/posts') return createPost(request, response, body);
    if (first === 'ingest' && second) return ingest(request, response, second, body);
    send(response, 404, '{"status":404}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
// Exit cleanly when the benchmark stops it (and let --cpu-prof write its profile).
process.once('SIGTERM', () => process.exit(0));
