// The framework floor of `npm run bench:request-cpu`: what Waypost's stack (docs/design.md
// "Stack": fastify, typebox schemas compiled by Ajv and the serializer, Kysely, pino,
// prom-client) costs on its own, serving the plain server's private pages (bench/plain-server.ts,
// bench/plain-server-pg.ts) from the plain server's own schema and doing the same work: the
// token's SHA-256 looked up in its table with the person's name on every request, a keyset page
// with one row more, the deliveries of a page of posts, the same fields and `Link` header.
// Nothing of Waypost's own code runs. argv[2] is the plain server's SQLite file, or a
// PostgreSQL URL with argv[4] the connection options that select the plain schema; argv[3] the
// layers on top of fastify, comma-separated:
//
//   schemas  the query string validated by Ajv from a typebox schema, the answer written by
//            fastify's serializer from one (without: parsed by hand, written by JSON.stringify)
//   kysely   the statements run through Kysely, each compiled once, prepared statements kept
//            (SQLite: better-sqlite3's, PostgreSQL: named statements on each connection);
//            without: the driver itself, as the plain server runs it
//   log      one pino line a request, when it is answered, to /dev/null (without: no logger)
//   metrics  prom-client's request counter and latency histogram, once a request
//
// Prints `{port}` and serves until killed. Nothing here asserts a time.
import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type Dialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';
import { Type } from 'typebox';
import { COLUMNS, plainCaller, plainKey, seconds, shape, type Caller, type Kind, type Row } from './plain-shared.ts';

const LAYERS = new Set((process.argv[3] ?? '').split(',').filter(Boolean));
for (const layer of LAYERS) {
  if (!['schemas', 'kysely', 'log', 'metrics'].includes(layer)) throw new Error(`stack-server: no layer ${layer}`);
}

const TARGET = process.argv[2] ?? '';
const POSTGRES = TARGET.startsWith('postgres');
// Times are BIGINT milliseconds, far below 2^53 (as Waypost and the plain server read them).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

type TokenRow = { user_id: string; permissions: string; expires_at: number; username: string };
/** A statement's text in the database's own placeholders: `?` on SQLite, `$1`, `$2`… on PostgreSQL. */
const numbered = (text: string) => {
  let n = 0;
  return POSTGRES ? text.replace(/\?/g, () => `$${++n}`) : text;
};
const TOKEN_SQL = numbered(`select t.user_id, t.permissions, t.expires_at, u.username from tokens t
   join users u on u.id = t.user_id where t.hash = ?`);
const PAGE_SQL = Object.fromEntries(
  (Object.keys(COLUMNS) as Kind[]).map((kind) => [
    kind,
    numbered(`select ${COLUMNS[kind]} from ${kind} where user_id = ? and scope = 'private' and (time, id) < (?, ?)
     order by time desc, id desc limit ?`),
  ]),
) as Record<Kind, string>;
const deliveriesSql = (n: number) =>
  `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
   where ${POSTGRES ? 'user_id = $1 and post_id = any($2)' : `user_id = ? and post_id in (${Array(n).fill('?').join(',')})`}`;

/** How the server runs a statement: its SQL text and its values, the rows back. */
type Run = <T>(text: string, values: unknown[]) => T[] | Promise<T[]>;

/** Each statement's name on every connection, made from its text once. */
const names = new Map<string, string>();
const nameOf = (text: string) => {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `s${names.size}`));
  return name;
};

/** The driver itself: better-sqlite3's statements prepared once each, or pg's named statements. */
function bareRun(): Run {
  if (POSTGRES) {
    const pool = openPool();
    return async <T>(text: string, values: unknown[]) =>
      (await pool.query<T & pg.QueryResultRow>({ name: nameOf(text), text, values })).rows;
  }
  const prepare = preparedOnce();
  return <T>(text: string, values: unknown[]) => prepare(text).all(...values) as T[];
}

const openPool = () => new pg.Pool({ connectionString: TARGET, options: process.argv[4], max: 10 });

/** The SQLite file, opened as the plain server opens it; each statement prepared at its first use. */
function preparedOnce(): { (text: string): SQLite.Statement; sqlite: SQLite.Database } {
  const sqlite = new SQLite(TARGET);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  const statements = new Map<string, SQLite.Statement>();
  const prepare = (text: string) => {
    let statement = statements.get(text);
    if (!statement) statements.set(text, (statement = sqlite.prepare(text)));
    return statement;
  };
  return Object.assign(prepare, { sqlite });
}

/** Kysely, each statement compiled once (a `sql` template of its text), prepared statements kept. */
function kyselyRun(): Run {
  let dialect: Dialect;
  if (POSTGRES) {
    const pool = openPool();
    // Kysely sends its statements unnamed; each connection names them, so they stay prepared.
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (config: unknown) => unknown;
      (client as { query: unknown }).query = (text: unknown, values?: unknown) =>
        typeof text === 'string' ? query({ name: nameOf(text), text, values }) : query(text);
    });
    dialect = new PostgresDialect({ pool });
  } else {
    const prepare = preparedOnce();
    const database: SqliteDatabase = { close: () => prepare.sqlite.close(), prepare };
    dialect = new SqliteDialect({ database });
  }
  const db = new Kysely<Record<string, never>>({ dialect });
  const compiled = new Map<string, string>();
  return async <T>(text: string, values: unknown[]) => {
    let found = compiled.get(text);
    if (found === undefined) {
      found = sql.raw(text).compile(db).sql;
      compiled.set(text, found);
    }
    const { rows } = await db.executeQuery<T>(CompiledQuery.raw(found, values));
    return rows;
  };
}

const run = LAYERS.has('kysely') ? kyselyRun() : bareRun();

// The answers' schemas: the fields `shape` (bench/plain-shared.ts) makes, with their types.
const number = Type.Number();
const nullableNumber = Type.Union([Type.Number(), Type.Null()]);
const nullableString = Type.Union([Type.String(), Type.Null()]);
const place = Type.Union([Type.Object({ lat: number, lon: number }), Type.Null()]);
const common = { id: Type.String(), username: Type.String(), scope: Type.String(), time: number };
const ITEMS = {
  locations: Type.Object({
    ...common,
    lat: number,
    lon: number,
    alt: nullableNumber,
    accuracy: nullableNumber,
    speed: nullableNumber,
    heading: nullableNumber,
    source: nullableString,
    created_at: number,
  }),
  posts: Type.Object({
    ...common,
    created_at: number,
    text: Type.String(),
    media_ids: Type.Array(Type.String()),
    location: place,
    source: nullableString,
    deliveries: Type.Array(
      Type.Object({
        service_id: Type.String(),
        status: Type.String(),
        attempts: number,
        remote_url: nullableString,
        last_error: nullableString,
        updated_at: number,
      }),
    ),
  }),
  media: Type.Object({
    ...common,
    kind: Type.String(),
    mime_type: Type.String(),
    size: number,
    sha256: Type.String(),
    width: nullableNumber,
    height: nullableNumber,
    duration: nullableNumber,
    location: place,
    caption: nullableString,
    url: Type.String(),
    thumbnail_url: nullableString,
    created_at: number,
  }),
};
const Query = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    until_time: Type.Optional(Type.Number()),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** One line a request, when it is answered, as Waypost writes it (fastify's default is two). */
class OneLine extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(_error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    reply.log.info(
      {
        request_id: request.id,
        req: { method: request.method, url: request.url },
        res: { statusCode: reply.statusCode },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  }
}

const app = Fastify(
  LAYERS.has('log')
    ? { loggerInstance: pino(pino.destination({ dest: '/dev/null', sync: true })), logController: new OneLine() }
    : { logger: false },
);

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

// The token, on every request, before routing's handler (as Waypost checks it in a hook).
app.decorateRequest('caller', undefined);
app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
  const header = request.headers.authorization;
  const rows = header?.startsWith('Bearer ')
    ? await run<TokenRow>(TOKEN_SQL, [createHash('sha256').update(header.slice(7)).digest('hex')])
    : [];
  const caller = plainCaller(rows[0], 'get_private_scope');
  if (!caller) return reply.code(401).send({ status: 401 });
  request.caller = caller;
});

if (LAYERS.has('metrics')) {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'requests', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'time',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? '', status_code: reply.statusCode };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
}

for (const kind of Object.keys(COLUMNS) as Kind[]) {
  const schema = LAYERS.has('schemas') ? { querystring: Query, response: { 200: Type.Array(ITEMS[kind]) } } : {};
  app.get(`/${kind}/private`, { schema }, async (request, reply) => {
    const caller = request.caller!;
    const query = request.query as { count?: number | string };
    const count = Number(query.count ?? 50);
    // Read from the URL as the plain server reads it, so both take the same keys.
    const key = plainKey(new URL(request.url, 'http://127.0.0.1'), count);
    if (!key) return reply.code(400).send({ status: 400 });
    const rows = await run<Row>(PAGE_SQL[kind], [caller.userId, key[0], key[1], count + 1]);
    const more = rows.length > count;
    if (more) rows.pop();
    const byPost = new Map<unknown, unknown[]>();
    if (kind === 'posts' && rows.length > 0) {
      const ids = rows.map((row) => row.id);
      const found = await run<Record<string, unknown>>(
        deliveriesSql(rows.length),
        POSTGRES ? [caller.userId, ids] : [caller.userId, ...ids],
      );
      for (const { post_id, updated_at, ...rest } of found) {
        byPost.set(post_id, [...(byPost.get(post_id) ?? []), { ...rest, updated_at: seconds(updated_at as number) }]);
      }
    }
    const last = rows.at(-1);
    if (more && last) {
      const cursor = Buffer.from(JSON.stringify([last.time, last.id])).toString('base64url');
      reply.header('link', `<http://127.0.0.1/${kind}/private?count=${count}&cursor=${cursor}>; rel="next"`);
    }
    return rows.map((row) => shape(kind, row, caller, byPost));
  });
}

await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
process.once('SIGTERM', () => process.exit(0));
