// The baseline of `npm run bench:requests`: the fastest honest way to do what Waypost does for
// the same requests, written by hand with node:http and the same database driver, on the same
// database file, with no framework and no query builder. Prints `{port}` and serves until killed.
//
// What it does, as Waypost does: reads `Authorization: Bearer`, looks the token up by its
// SHA-256 together with its grant (one query), checks expiry and that both the token and the
// grant hold the permission; pages by keyset (`time`, `id`) with one row more to know whether a
// next page exists and a `Link` header carrying the cursor; serialises the same fields; writes
// batches of points in one durable transaction (synchronous=FULL) with duplicates dropped by
// the unique index and the logged cells folded into the cell counts; writes a post with its
// delivery and job rows in one transaction.
// What it does not do: validate beyond what the benchmark sends, negotiate formats, write
// logs, metrics, security headers or request ids. Those are Waypost's cost to carry.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import SQLite from 'better-sqlite3';
import { FOLD_SQL } from '../src/locations/cells.repo.ts';

const db = new SQLite(process.argv[2] ?? '');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');

const tokenQuery = db.prepare(
  `select t.account_id as user_id, t.expires_at, t.payload as token, g.payload as grant, u.username
   from oauth_entities t
   join oauth_entities g on g.kind = 'Grant' and g.id = t.grant_id
   join users u on u.id = t.account_id
   where t.kind = 'AccessToken' and t.id = ?`,
);

interface Caller {
  userId: string;
  username: string;
}

function authorize(request: IncomingMessage, permission: string): Caller | undefined {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) return undefined;
  const row = tokenQuery.get(createHash('sha256').update(header.slice(7)).digest('hex')) as
    { user_id: string; expires_at: number | null; token: string; grant: string; username: string } | undefined;
  if (!row || (row.expires_at !== null && row.expires_at <= Date.now())) return undefined;
  const scopes = String((JSON.parse(row.token) as { scope?: string }).scope ?? '').split(' ');
  const granted = String((JSON.parse(row.grant) as { openid?: { scope?: string } }).openid?.scope ?? '').split(' ');
  return scopes.includes(permission) && granted.includes(permission)
    ? { userId: row.user_id, username: row.username }
    : undefined;
}

const seconds = (ms: number) => ms / 1000;

// Keyset pages of the three kinds, newest first, before an instant (the benchmark's `until_time`).
const pages = {
  locations: db.prepare(
    `select id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source from locations
     where user_id = ? and scope = 'private' and time < ? order by time desc, id desc limit ?`,
  ),
  posts: db.prepare(
    `select id, scope, time, created_at, text, media_ids, lat, lon, source from posts
     where user_id = ? and scope = 'private' and time < ? order by time desc, id desc limit ?`,
  ),
  media: db.prepare(
    `select id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration, lat, lon,
            caption, has_thumbnail, source from media
     where user_id = ? and scope = 'private' and time < ? order by time desc, id desc limit ?`,
  ),
};
type Row = Record<string, unknown> & { id: string; time: number; created_at: number };

function deliveriesOf(userId: string, postIds: string[]) {
  const rows = db
    .prepare(
      `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
       where user_id = ? and post_id in (${postIds.map(() => '?').join(',')})`,
    )
    .all(userId, ...postIds) as Record<string, unknown>[];
  const byPost = new Map<unknown, unknown[]>();
  for (const { post_id, updated_at, ...rest } of rows) {
    byPost.set(post_id, [...(byPost.get(post_id) ?? []), { ...rest, updated_at: seconds(updated_at as number) }]);
  }
  return byPost;
}

function shape(kind: keyof typeof pages, row: Row, caller: Caller, more: Map<unknown, unknown[]>): unknown {
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
  const url = `http://127.0.0.1/media/id/${row.id}/file`;
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
    url,
    thumbnail_url: row.has_thumbnail ? `http://127.0.0.1/media/id/${row.id}/thumbnail` : null,
    created_at: seconds(row.created_at),
  };
}

function page(kind: keyof typeof pages, request: IncomingMessage, response: ServerResponse, url: URL) {
  const caller = authorize(request, 'get_private_scope');
  if (!caller) return send(response, 401, '{"status":401}');
  const count = Number(url.searchParams.get('count') ?? 50);
  const until = Number(url.searchParams.get('until_time')) * 1000;
  const rows = pages[kind].all(caller.userId, until, count + 1) as Row[];
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

// Rows per insert statement: one prepared statement of CHUNK rows for the bulk of a batch (the
// fastest way found to feed better-sqlite3), one of a row for what is left over.
const CHUNK = 100;
const pointsInsert = (rows: number) =>
  db.prepare(
    `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
     values ${Array(rows).fill("(?, ?, 'private', ?, ?, ?, ?, ?, ?, ?, ?, null)").join(', ')}
     on conflict (user_id, time, lat, lon) do nothing`,
  );
const insertChunk = pointsInsert(CHUNK);
const insertOne = pointsInsert(1);
// Every writer of points adds the cells its points logged to the cell counts before it commits
// (the schema's rule since migration 0026; the SQL text, no code of Waypost's).
const fold = FOLD_SQL.map((text) => db.prepare(text));
const insertPoints = db.transaction((userId: string, points: Record<string, number | undefined>[]) => {
  const now = Date.now();
  const values = (p: Record<string, number | undefined>) => [
    userId,
    newId(),
    Math.round((p.time ?? 0) * 1000),
    now,
    p.lat,
    p.lon,
    p.alt ?? null,
    p.accuracy ?? null,
    p.speed ?? null,
    p.heading ?? null,
  ];
  let stored = 0;
  let i = 0;
  for (; i + CHUNK <= points.length; i += CHUNK) {
    stored += insertChunk.run(points.slice(i, i + CHUNK).flatMap(values)).changes;
  }
  for (; i < points.length; i++) stored += insertOne.run(values(points[i]!)).changes;
  for (const statement of fold) statement.run();
  return stored;
});

function addLocations(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = authorize(request, 'write_locations');
  if (!caller) return send(response, 401, '{"status":401}');
  const points = JSON.parse(body) as Record<string, number>[];
  if (!Array.isArray(points) || points.length > 1000) return send(response, 400, '{"status":400}');
  for (const p of points) {
    if (!(Math.abs(p.lat ?? NaN) <= 90 && Math.abs(p.lon ?? NaN) <= 180 && Number.isFinite(p.time))) {
      return send(response, 400, '{"status":400}');
    }
  }
  const stored = insertPoints(caller.userId, points);
  send(response, 200, JSON.stringify({ stored, duplicates: points.length - stored }));
}

const servicesOfGroup = db.prepare(
  `select m.service_id from service_groups g join service_group_members m on m.group_id = g.id
   where g.user_id = ? and g.id = ?`,
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
  for (const group of groups)
    for (const { service_id } of servicesOfGroup.all(userId, group) as { service_id: string }[])
      services.add(service_id);
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
  const post = {
    id,
    username: caller.username,
    text: input.text,
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
}

// A ULID as Waypost makes them: 48 bits of time, 80 random bits from a buffered source.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let pool = randomBytes(0);
let offset = 0;
function newId(): string {
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

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    ...headers,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (request.method === 'GET') {
    const kind = url.pathname.split('/')[1];
    if (url.pathname.endsWith('/private') && (kind === 'locations' || kind === 'posts' || kind === 'media')) {
      return page(kind, request, response, url);
    }
    return send(response, 404, '{"status":404}');
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    if (url.pathname === '/locations') return addLocations(request, response, body);
    if (url.pathname === '/posts') return createPost(request, response, body);
    send(response, 404, '{"status":404}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
