// The PostgreSQL twin of bench/baseline-server.ts: the same requests done by hand with
// node:http and the same driver Waypost uses (pg), named prepared statements, no framework and
// no query builder. The database URL is argv[2]. Prints `{port}` and serves until killed.
// It does and leaves out what the SQLite baseline does and leaves out (see that file).
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
const pool = new pg.Pool({ connectionString: process.argv[2], max: 10 });

interface Caller {
  userId: string;
  username: string;
}

async function authorize(request: IncomingMessage, permission: string): Promise<Caller | undefined> {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) return undefined;
  const { rows } = await pool.query<{
    user_id: string;
    expires_at: number | null;
    token: string;
    grant: string;
    username: string;
  }>({
    name: 'token',
    text: `select t.account_id as user_id, t.expires_at, t.payload as token, g.payload as grant, u.username
           from oauth_entities t
           join oauth_entities g on g.kind = 'Grant' and g.id = t.grant_id
           join users u on u.id = t.account_id
           where t.kind = 'AccessToken' and t.id = $1`,
    values: [createHash('sha256').update(header.slice(7)).digest('hex')],
  });
  const row = rows[0];
  if (!row || (row.expires_at !== null && row.expires_at <= Date.now())) return undefined;
  const scopes = String((JSON.parse(row.token) as { scope?: string }).scope ?? '').split(' ');
  const granted = String((JSON.parse(row.grant) as { openid?: { scope?: string } }).openid?.scope ?? '').split(' ');
  return scopes.includes(permission) && granted.includes(permission)
    ? { userId: row.user_id, username: row.username }
    : undefined;
}

const seconds = (ms: number) => ms / 1000;
const COLUMNS = {
  locations: 'id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source',
  posts: 'id, scope, time, created_at, text, media_ids, lat, lon, source',
  media:
    'id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration, lat, lon, caption, has_thumbnail, source',
};
type Kind = keyof typeof COLUMNS;
type Row = Record<string, unknown> & { id: string; time: number; created_at: number };

async function deliveriesOf(userId: string, postIds: string[]) {
  const { rows } = await pool.query<Record<string, unknown>>({
    name: 'deliveries',
    text: `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
           where user_id = $1 and post_id = any($2)`,
    values: [userId, postIds],
  });
  const byPost = new Map<unknown, unknown[]>();
  for (const { post_id, updated_at, ...rest } of rows) {
    byPost.set(post_id, [...(byPost.get(post_id) ?? []), { ...rest, updated_at: seconds(updated_at as number) }]);
  }
  return byPost;
}

function shape(kind: Kind, row: Row, caller: Caller, more: Map<unknown, unknown[]>): unknown {
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

async function page(kind: Kind, request: IncomingMessage, response: ServerResponse, url: URL) {
  const caller = await authorize(request, 'get_private_scope');
  if (!caller) return send(response, 401, '{"status":401}');
  const count = Number(url.searchParams.get('count') ?? 50);
  const until = Math.round(Number(url.searchParams.get('until_time')) * 1000);
  const { rows } = await pool.query<Row>({
    name: `page-${kind}`,
    text: `select ${COLUMNS[kind]} from ${kind} where user_id = $1 and scope = 'private' and time < $2
           order by time desc, id desc limit $3`,
    values: [caller.userId, until, count + 1],
  });
  const more = rows.length > count;
  if (more) rows.pop();
  const deliveries =
    kind === 'posts' && rows.length > 0
      ? await deliveriesOf(
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

async function addLocations(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = await authorize(request, 'write_locations');
  if (!caller) return send(response, 401, '{"status":401}');
  const points = JSON.parse(body) as Record<string, number | undefined>[];
  if (!Array.isArray(points) || points.length > 1000) return send(response, 400, '{"status":400}');
  for (const p of points) {
    if (!(Math.abs(p.lat ?? NaN) <= 90 && Math.abs(p.lon ?? NaN) <= 180 && Number.isFinite(p.time))) {
      return send(response, 400, '{"status":400}');
    }
  }
  const now = Date.now();
  // One statement over arrays: PostgreSQL's fastest way to insert a batch from a client.
  const result = await pool.query({
    name: 'points',
    text: `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
           select $1, id, 'private', time, $2, lat, lon, alt, accuracy, speed, heading, null
           from unnest($3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[])
             as p(id, time, lat, lon, alt, accuracy, speed, heading)
           on conflict (user_id, time, lat, lon) do nothing`,
    values: [
      caller.userId,
      now,
      points.map(() => randomUUID()),
      points.map((p) => Math.round((p.time ?? 0) * 1000)),
      points.map((p) => p.lat),
      points.map((p) => p.lon),
      points.map((p) => p.alt ?? null),
      points.map((p) => p.accuracy ?? null),
      points.map((p) => p.speed ?? null),
      points.map((p) => p.heading ?? null),
    ],
  });
  const stored = result.rowCount ?? 0;
  send(response, 200, JSON.stringify({ stored, duplicates: points.length - stored }));
}

async function createPost(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = await authorize(request, 'create_post');
  if (!caller) return send(response, 401, '{"status":401}');
  const input = JSON.parse(body) as { text?: unknown; groups?: unknown };
  if (typeof input.text !== 'string' || !Array.isArray(input.groups)) return send(response, 400, '{"status":400}');
  const now = Date.now();
  const id = randomUUID();
  const client = await pool.connect();
  let services: string[];
  try {
    await client.query('begin');
    await client.query({
      name: 'post',
      text: `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
             values ($1, $2, 'private', $3, $3, $4, '[]', null, null, null)`,
      values: [caller.userId, id, now, input.text],
    });
    const { rows } = await client.query<{ service_id: string }>({
      name: 'members',
      text: `select distinct m.service_id from service_groups g join service_group_members m on m.group_id = g.id
             where g.user_id = $1 and g.id = any($2)`,
      values: [caller.userId, input.groups],
    });
    services = rows.map((r) => r.service_id);
    for (const service of services) {
      const delivery = randomUUID();
      await client.query({
        name: 'delivery',
        text: `insert into deliveries (id, user_id, post_id, service_id, status, attempts, remote_url, last_error, created_at, updated_at)
               values ($1, $2, $3, $4, 'pending', 0, null, null, $5, $5)`,
        values: [delivery, caller.userId, id, service, now],
      });
      await client.query({
        name: 'job',
        text: `insert into jobs (id, kind, ref, payload, status, attempts, max_attempts, run_at, locked_by, locked_until, last_error, created_at, updated_at)
               values ($1, 'delivery', $2, $3, 'queued', 0, 8, $4, null, null, null, $4, $4)`,
        values: [randomUUID(), delivery, JSON.stringify({ delivery_id: delivery }), now],
      });
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
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

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    ...headers,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

function route(request: IncomingMessage, response: ServerResponse, body: string): Promise<void> | void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const kind = url.pathname.split('/')[1];
  if (
    request.method === 'GET' &&
    url.pathname.endsWith('/private') &&
    (kind === 'locations' || kind === 'posts' || kind === 'media')
  ) {
    return page(kind, request, response, url);
  }
  if (request.method === 'POST' && url.pathname === '/locations') return addLocations(request, response, body);
  if (request.method === 'POST' && url.pathname === '/posts') return createPost(request, response, body);
  send(response, 404, '{"status":404}');
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    Promise.resolve(route(request, response, Buffer.concat(chunks).toString('utf8'))).catch(() =>
      send(response, 500, '{"status":500}'),
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
