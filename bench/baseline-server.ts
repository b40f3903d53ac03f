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
// The request loop is bench/plain-shared.ts, shared with the other hand-written baselines; this
// file is the store it serves from: the SQLite queries on Waypost's tables.
import SQLite from 'better-sqlite3';
import { FOLD_SQL } from '../src/locations/cells.repo.ts';
import { oauthCaller, serve, type Point, type Row } from './plain-shared.ts';
import { sqlitePoints, sqlitePost } from './plain-queries.ts';

const db = new SQLite(process.argv[2] ?? '');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');

const tokenQuery = db.prepare<
  [string],
  { user_id: string; expires_at: number | null; token: string; grant: string; username: string }
>(
  `select t.account_id as user_id, t.expires_at, t.payload as token, g.payload as grant, u.username
   from oauth_entities t
   join oauth_entities g on g.kind = 'Grant' and g.id = t.grant_id
   join users u on u.id = t.account_id
   where t.kind = 'AccessToken' and t.id = ?`,
);

// Keyset pages of the three kinds, newest first, before an instant (the benchmark's `until_time`).
const pages = {
  locations: db.prepare<unknown[], Row>(
    `select id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source from locations
     where user_id = ? and scope = 'private' and time < ? order by time desc, id desc limit ?`,
  ),
  posts: db.prepare<unknown[], Row>(
    `select id, scope, time, created_at, text, media_ids, lat, lon, source from posts
     where user_id = ? and scope = 'private' and time < ? order by time desc, id desc limit ?`,
  ),
  media: db.prepare<unknown[], Row>(
    `select id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration, lat, lon,
            caption, has_thumbnail, source from media
     where user_id = ? and scope = 'private' and time < ? order by time desc, id desc limit ?`,
  ),
};

const insertPoints = sqlitePoints(db);
// Every writer of points adds the cells its points logged to the cell counts before it commits
// (the schema's rule since migration 0026; the SQL text, no code of Waypost's).
const fold = FOLD_SQL.map((text) => db.prepare(text));
const storePoints = db.transaction((userId: string, points: Point[]) => {
  const stored = insertPoints(userId, null, points, Date.now());
  for (const statement of fold) statement.run();
  return stored;
});

const servicesOfGroup = db.prepare<[string, string], { service_id: string }>(
  `select m.service_id from service_groups g join service_group_members m on m.group_id = g.id
   where g.user_id = ? and g.id = ?`,
);

serve({
  caller: (hash, permission) => oauthCaller(tokenQuery.get(hash), permission),
  // Only `until_time`: this baseline gives cursors out but does not read them.
  key: (url) => [Number(url.searchParams.get('until_time')) * 1000, ''],
  page: (kind, userId, key, limit) => pages[kind].all(userId, key[0], limit),
  // A statement prepared for each page, as this baseline always did.
  deliveries: (userId, postIds) =>
    db
      .prepare<unknown[], Record<string, unknown>>(
        `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
         where user_id = ? and post_id in (${postIds.map(() => '?').join(',')})`,
      )
      .all(userId, ...postIds),
  points: (userId, _source, points) => storePoints(userId, points),
  post: sqlitePost(db, servicesOfGroup),
});
