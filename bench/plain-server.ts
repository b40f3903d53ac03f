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
// The request loop is bench/plain-shared.ts, shared with the other hand-written baselines; this
// file is the store it serves from: the SQLite queries.
import SQLite from 'better-sqlite3';
import { COLUMNS, plainCaller, plainKey, serve, type Kind, type Point, type Row } from './plain-shared.ts';
import { sqlitePoints, sqlitePost } from './plain-queries.ts';

const db = new SQLite(process.argv[2] ?? '');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');

const tokenQuery = db.prepare<[string], { user_id: string; permissions: string; expires_at: number; username: string }>(
  `select t.user_id, t.permissions, t.expires_at, u.username from tokens t join users u on u.id = t.user_id
   where t.hash = ?`,
);

// Keyset pages, newest first, after a key: `until_time` is the key (time, '').
const pages = Object.fromEntries(
  Object.entries(COLUMNS).map(([kind, columns]) => [
    kind,
    db.prepare<unknown[], Row>(
      `select ${columns} from ${kind} where user_id = ? and scope = 'private' and (time, id) < (?, ?)
       order by time desc, id desc limit ?`,
    ),
  ]),
) as Record<Kind, SQLite.Statement<unknown[], Row>>;

const deliveriesQuery = (n: number) =>
  db.prepare<unknown[], Record<string, unknown>>(
    `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
     where user_id = ? and post_id in (${Array(n).fill('?').join(',')})`,
  );
const deliveriesOfPage = deliveriesQuery(50);

const insertPoints = sqlitePoints(db);
interface Waiting {
  userId: string;
  source: string | null;
  points: Point[];
  resolve: (stored: number) => void;
  reject: (error: unknown) => void;
}
let waiting: Waiting[] = [];

/** Every batch that arrived since the last commit, in one durable transaction. */
const commitWaiting = db.transaction((group: Waiting[]) => {
  const now = Date.now();
  return group.map(({ userId, source, points }) => insertPoints(userId, source, points, now));
});

/** Queues a batch for the next commit; resolves after that commit, with the rows stored. */
function storePoints(userId: string, source: string | null, points: Point[]): Promise<number> {
  return new Promise((resolve, reject) => {
    waiting.push({ userId, source, points, resolve, reject });
    if (waiting.length > 1) return;
    setImmediate(() => {
      const group = waiting;
      waiting = [];
      try {
        const stored = commitWaiting(group);
        group.forEach((batch, i) => batch.resolve(stored[i]!));
      } catch (error) {
        for (const batch of group) batch.reject(error);
      }
    });
  });
}

const findTracker = db.prepare<[string], { user_id: string; token_hash: string }>(
  'select user_id, token_hash from trackers where id = ?',
);
const servicesOfGroup = db.prepare<[string, string], { service_id: string }>(
  'select service_id from group_members where user_id = ? and group_id = ?',
);

serve({
  caller: (hash, permission) => plainCaller(tokenQuery.get(hash), permission),
  key: plainKey,
  page: (kind, userId, key, limit) => pages[kind].all(userId, key[0], key[1], limit),
  deliveries: (userId, postIds) =>
    (postIds.length === 50 ? deliveriesOfPage : deliveriesQuery(postIds.length)).all(userId, ...postIds),
  points: storePoints,
  post: sqlitePost(db, servicesOfGroup),
  tracker: (id) => findTracker.get(id),
});
