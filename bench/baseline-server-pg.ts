// The PostgreSQL twin of bench/baseline-server.ts: the same requests done by hand with
// node:http and the same driver Waypost uses (pg), named prepared statements, no framework and
// no query builder. The database URL is argv[2]. Prints `{port}` and serves until killed.
// It does and leaves out what the SQLite baseline does and leaves out (see that file).
// The request loop is bench/plain-shared.ts; this file is the store it serves from.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { COLUMNS, oauthCaller, serve, type Row } from './plain-shared.ts';
import { pgDeliveries, pgPoints, pgPost, pgRows } from './plain-queries.ts';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
const pool = new pg.Pool({ connectionString: process.argv[2], max: 10 });

serve({
  caller: async (hash, permission) => {
    const rows = await pgRows<{
      user_id: string;
      expires_at: number | null;
      token: string;
      grant: string;
      username: string;
    }>(
      pool,
      'token',
      `select t.account_id as user_id, t.expires_at, t.payload as token, g.payload as grant, u.username
       from oauth_entities t
       join oauth_entities g on g.kind = 'Grant' and g.id = t.grant_id
       join users u on u.id = t.account_id
       where t.kind = 'AccessToken' and t.id = $1`,
      [hash],
    );
    return oauthCaller(rows[0], permission);
  },
  // Only `until_time`: this baseline gives cursors out but does not read them.
  key: (url) => [Math.round(Number(url.searchParams.get('until_time')) * 1000), ''],
  page: (kind, userId, key, limit) =>
    pgRows<Row>(
      pool,
      `page-${kind}`,
      `select ${COLUMNS[kind]} from ${kind} where user_id = $1 and scope = 'private' and time < $2
       order by time desc, id desc limit $3`,
      [userId, key[0], limit],
    ),
  deliveries: (userId, postIds) => pgDeliveries(pool, userId, postIds),
  points: (userId, _source, points) => pgPoints(pool, randomUUID, userId, null, points),
  post: (userId, text, groups) =>
    pgPost(
      pool,
      `select distinct m.service_id from service_groups g join service_group_members m on m.group_id = g.id
       where g.user_id = $1 and g.id = any($2)`,
      randomUUID,
      userId,
      text,
      groups,
    ),
});
