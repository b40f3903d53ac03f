// The queries the hand-written baselines run the same way on the same database, whichever
// tables they read tokens and groups from (bench/plain-server.ts and bench/baseline-server.ts on
// SQLite, bench/plain-server-pg.ts and bench/baseline-server-pg.ts on PostgreSQL): a batch of
// points, a post with its delivery and job rows, and on PostgreSQL the deliveries of a page.
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import { newId, type Point } from './plain-shared.ts';

// One prepared statement of CHUNK rows for the bulk of a batch (the fastest way found to feed
// better-sqlite3), one of a row for what is left over.
const CHUNK = 100;

/** Stores points in `locations`, duplicates dropped by the unique index; to be run in a transaction. */
export function sqlitePoints(db: SQLite.Database) {
  const insert = (rows: number) =>
    db.prepare(
      `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
       values ${Array(rows).fill("(?, ?, 'private', ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(', ')}
       on conflict (user_id, time, lat, lon) do nothing`,
    );
  const insertChunk = insert(CHUNK);
  const insertOne = insert(1);
  return (userId: string, source: string | null, points: Point[], now: number): number => {
    const values = (p: Point) => [userId, newId(), p[0], now, p[1], p[2], p[3], p[4], p[5], p[6], source];
    let stored = 0;
    let i = 0;
    for (; i + CHUNK <= points.length; i += CHUNK) {
      stored += insertChunk.run(points.slice(i, i + CHUNK).flatMap(values)).changes;
    }
    for (; i < points.length; i++) stored += insertOne.run(values(points[i]!)).changes;
    return stored;
  };
}

/** A post with a delivery and a job for each service of its groups (`servicesOfGroup`), in one transaction. */
export function sqlitePost(
  db: SQLite.Database,
  servicesOfGroup: SQLite.Statement<[string, string], { service_id: string }>,
) {
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
  return db.transaction((userId: string, text: string, groups: string[]) => {
    const now = Date.now();
    const id = newId();
    insertPost.run(userId, id, now, now, text);
    const services = new Set<string>();
    for (const group of groups)
      for (const { service_id } of servicesOfGroup.all(userId, group)) services.add(service_id);
    for (const service of services) {
      const delivery = newId();
      insertDelivery.run(delivery, userId, id, service, now, now);
      insertJob.run(newId(), delivery, JSON.stringify({ delivery_id: delivery }), now, now, now);
    }
    return { id, now, services: [...services] };
  });
}

/** The rows of a named prepared statement. */
export async function pgRows<T extends pg.QueryResultRow>(
  pool: pg.Pool,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  return (await pool.query<T>({ name, text, values })).rows;
}

/** The delivery rows of a page of posts. */
export function pgDeliveries(pool: pg.Pool, userId: string, postIds: string[]) {
  return pgRows<Record<string, unknown>>(
    pool,
    'deliveries',
    `select post_id, service_id, status, attempts, remote_url, last_error, updated_at from deliveries
     where user_id = $1 and post_id = any($2)`,
    [userId, postIds],
  );
}

/** One statement over arrays (PostgreSQL's fastest way to insert a batch from a client), committed on its own. */
export async function pgPoints(
  pool: pg.Pool,
  id: () => string,
  userId: string,
  source: string | null,
  points: Point[],
): Promise<number> {
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
      points.map(() => id()),
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

/**
 * A post with a delivery and a job for each service of its groups, in one transaction; `members`
 * is the query of those services (`$1` the person, `$2` the groups), `id` makes the ids.
 */
export async function pgPost(
  pool: pg.Pool,
  members: string,
  id: () => string,
  userId: string,
  text: string,
  groups: string[],
): Promise<{ id: string; now: number; services: string[] }> {
  const now = Date.now();
  const postId = id();
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query({
      name: 'post',
      text: `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
             values ($1, $2, 'private', $3, $3, $4, '[]', null, null, null)`,
      values: [userId, postId, now, text],
    });
    const { rows } = await client.query<{ service_id: string }>({
      name: 'members',
      text: members,
      values: [userId, groups],
    });
    const services = rows.map((r) => r.service_id);
    for (const service of services) {
      const delivery = id();
      await client.query({
        name: 'delivery',
        text: `insert into deliveries (id, user_id, post_id, service_id, status, attempts, remote_url, last_error, created_at, updated_at)
               values ($1, $2, $3, $4, 'pending', 0, null, null, $5, $5)`,
        values: [delivery, userId, postId, service, now],
      });
      await client.query({
        name: 'job',
        text: `insert into jobs (id, kind, ref, payload, status, attempts, max_attempts, run_at, locked_by, locked_until, last_error, created_at, updated_at)
               values ($1, 'delivery', $2, $3, 'queued', 0, 8, $4, null, null, null, $4, $4)`,
        values: [id(), delivery, JSON.stringify({ delivery_id: delivery }), now],
      });
    }
    await client.query('commit');
    return { id: postId, now, services };
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}
