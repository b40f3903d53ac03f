// The PostgreSQL twin of bench/plain-server.ts: the same requests by hand with node:http and
// the driver Waypost uses (pg, ten connections), named prepared statements, on the plain
// schema (bench/plain-schema.ts). argv[2] is the database URL, argv[3] the connection options
// that select the schema. It does and leaves out what the SQLite one does and leaves out (see
// that file); each batch of points is one statement, committed on its own, and PostgreSQL
// flushes the commits that wait together at once. Prints `{port}` and serves until killed.
// The request loop is bench/plain-shared.ts; this file is the store it serves from.
import pg from 'pg';
import { COLUMNS, newId, plainCaller, plainKey, serve, type Row } from './plain-shared.ts';
import { pgDeliveries, pgPoints, pgPost, pgRows } from './plain-queries.ts';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
const pool = new pg.Pool({ connectionString: process.argv[2], options: process.argv[3], max: 10 });

serve({
  caller: async (hash, permission) => {
    const rows = await pgRows<{ user_id: string; permissions: string; expires_at: number; username: string }>(
      pool,
      'token',
      `select t.user_id, t.permissions, t.expires_at, u.username from tokens t join users u on u.id = t.user_id
       where t.hash = $1`,
      [hash],
    );
    return plainCaller(rows[0], permission);
  },
  key: plainKey,
  page: (kind, userId, key, limit) =>
    pgRows<Row>(
      pool,
      `page-${kind}`,
      `select ${COLUMNS[kind]} from ${kind} where user_id = $1 and scope = 'private' and (time, id) < ($2, $3)
       order by time desc, id desc limit $4`,
      [userId, key[0], key[1], limit],
    ),
  deliveries: (userId, postIds) => pgDeliveries(pool, userId, postIds),
  points: (userId, source, points) => pgPoints(pool, newId, userId, source, points),
  post: (userId, text, groups) =>
    pgPost(
      pool,
      'select distinct service_id from group_members where user_id = $1 and group_id = any($2)',
      newId,
      userId,
      text,
      groups,
    ),
  tracker: async (id) =>
    (
      await pgRows<{ user_id: string; token_hash: string }>(
        pool,
        'tracker',
        'select user_id, token_hash from trackers where id = $1',
        [id],
      )
    )[0],
});
