// The PostgreSQL twin of bench/plain-server.ts: the same requests by hand with node:http and
// the driver Waypost uses (pg, ten connections), named prepared statements, on the plain
// schema (bench/plain-schema.ts). argv[2] is the database URL, argv[3] the connection options
// that select the schema. It does and leaves out what the SQLite one does and leaves out (see
// that file); each batch of points is one statement, committed on its own, and PostgreSQL
// flushes the commits that wait together at once. Prints `{port}` and serves until killed.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
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

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
const pool = new pg.Pool({ connectionString: process.argv[2], options: process.argv[3], max: 10 });

async function authorize(request: IncomingMessage, permission: string): Promise<Caller | undefined> {
  const header = request.headers.authorization;
  if (!header?.startsWith('Bearer ')) return undefined;
  const { rows } = await pool.query<{ user_id: string; permissions: string; expires_at: number; username: string }>({
    name: 'token',
    text: `select t.user_id, t.permissions, t.expires_at, u.username from tokens t join users u on u.id = t.user_id
           where t.hash = $1`,
    values: [createHash('sha256').update(header.slice(7)).digest('hex')],
  });
  const row = rows[0];
  if (!row || row.expires_at <= Date.now() || !row.permissions.split(' ').includes(permission)) return undefined;
  return { userId: row.user_id, username: row.username };
}

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

async function page(kind: Kind, request: IncomingMessage, response: ServerResponse, url: URL) {
  const caller = await authorize(request, 'get_private_scope');
  if (!caller) return send(response, 401, '{"status":401}');
  const count = Number(url.searchParams.get('count') ?? 50);
  const key = keyOf(url);
  if (!key || !(count >= 1 && count <= 100)) return send(response, 400, '{"status":400}');
  const { rows } = await pool.query<Row>({
    name: `page-${kind}`,
    text: `select ${COLUMNS[kind]} from ${kind} where user_id = $1 and scope = 'private' and (time, id) < ($2, $3)
           order by time desc, id desc limit $4`,
    values: [caller.userId, key[0], key[1], count + 1],
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

type Point = [
  time: number,
  lat: number,
  lon: number,
  alt: unknown,
  accuracy: unknown,
  speed: unknown,
  heading: unknown,
];

/** One statement over arrays: PostgreSQL's fastest way to insert a batch from a client. */
async function storePoints(userId: string, source: string | null, points: Point[]): Promise<number> {
  const column = (i: number) => points.map((p) => p[i]);
  const result = await pool.query({
    name: 'points',
    text: `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
           select $1, id, 'private', time, $2, lat, lon, alt, accuracy, speed, heading, $3
           from unnest($4::text[], $5::bigint[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::float8[])
             as p(id, time, lat, lon, alt, accuracy, speed, heading)
           on conflict (user_id, time, lat, lon) do nothing`,
    values: [
      userId,
      Date.now(),
      source,
      points.map(() => newId()),
      column(0),
      column(1),
      column(2),
      column(3),
      column(4),
      column(5),
      column(6),
    ],
  });
  return result.rowCount ?? 0;
}

async function addLocations(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = await authorize(request, 'write_locations');
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
  const stored = await storePoints(caller.userId, null, points);
  send(response, 200, JSON.stringify({ stored, duplicates: points.length - stored }));
}

interface Feature {
  geometry?: { type?: string; coordinates?: number[] };
  properties?: { timestamp?: string; altitude?: number; horizontal_accuracy?: number; speed?: number; course?: number };
}

async function ingest(request: IncomingMessage, response: ServerResponse, id: string, body: string) {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const { rows } = await pool.query<{ user_id: string; token_hash: string }>({
    name: 'tracker',
    text: 'select user_id, token_hash from trackers where id = $1',
    values: [id],
  });
  const tracker = rows[0];
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
  await storePoints(tracker.user_id, id, points);
  send(response, 200, '{"result":"ok"}');
}

async function createPost(request: IncomingMessage, response: ServerResponse, body: string) {
  const caller = await authorize(request, 'create_post');
  if (!caller) return send(response, 401, '{"status":401}');
  const input = JSON.parse(body) as { text?: unknown; groups?: unknown };
  if (typeof input.text !== 'string' || !Array.isArray(input.groups)) return send(response, 400, '{"status":400}');
  const now = Date.now();
  const id = newId();
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
      text: 'select distinct service_id from group_members where user_id = $1 and group_id = any($2)',
      values: [caller.userId, input.groups],
    });
    services = rows.map((r) => r.service_id);
    for (const service of services) {
      const delivery = newId();
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
        values: [newId(), delivery, JSON.stringify({ delivery_id: delivery }), now],
      });
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
  send(response, 202, JSON.stringify(postAnswer(id, caller, input.text, now, services)), {
    location: `/posts/id/${id}`,
  });
}

function route(request: IncomingMessage, response: ServerResponse, body: string): Promise<void> | void {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const [, first, second] = url.pathname.split('/');
  if (
    request.method === 'GET' &&
    second === 'private' &&
    (first === 'locations' || first === 'posts' || first === 'media')
  ) {
    return page(first, request, response, url);
  }
  if (request.method === 'POST' && url.pathname === '/locations') return addLocations(request, response, body);
  if (request.method === 'POST' && url.pathname === '/posts') return createPost(request, response, body);
  if (request.method === 'POST' && first === 'ingest' && second) return ingest(request, response, second, body);
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
// Exit cleanly when the benchmark stops it (and let --cpu-prof write its profile).
process.once('SIGTERM', () => process.exit(0));
