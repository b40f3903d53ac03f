// The schema of the plain baseline (bench/plain-server.ts, bench/plain-server-pg.ts): what a
// hand-written server needs to do the benchmarks' work, and nothing of Waypost's own choices.
// A plain token table (the SHA-256 of the token -> the person, the permissions, the expiry),
// the items with only the indexes that server's queries use (the keyset page, the uniqueness
// of a point), the deliveries and jobs a post queues, the groups a post names and the trackers
// that send points. No history, no counters, no triggers.
//
// The rows are copied from Waypost's seeded database into tables of their own: a SQLite file
// beside it, or the schema `plain` of the same PostgreSQL database.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sha256Hex } from '../src/lib/crypto.ts';

const TABLES = [
  `create table users (id text primary key, username text not null)`,
  `create table tokens (hash text primary key, user_id text not null, permissions text not null, expires_at bigint not null)`,
  `create table trackers (id text primary key, user_id text not null, token_hash text not null)`,
  `create table group_members (user_id text not null, group_id text not null, service_id text not null,
     primary key (user_id, group_id, service_id))`,
  `create table locations (user_id text not null, id text not null, scope text not null, time bigint not null,
     created_at bigint not null, lat double precision not null, lon double precision not null, alt double precision,
     accuracy double precision, speed double precision, heading double precision, source text)`,
  `create table posts (user_id text not null, id text not null, scope text not null, time bigint not null,
     created_at bigint not null, text text not null, media_ids text not null, lat double precision,
     lon double precision, source text)`,
  `create table media (user_id text not null, id text not null, scope text not null, time bigint not null,
     created_at bigint not null, kind text not null, mime_type text not null, size bigint not null, sha256 text not null,
     width integer, height integer, duration double precision, lat double precision, lon double precision,
     caption text, has_thumbnail integer not null, source text)`,
  `create table deliveries (id text not null, user_id text not null, post_id text not null, service_id text not null,
     status text not null, attempts integer not null, remote_url text, last_error text, created_at bigint not null,
     updated_at bigint not null)`,
  `create table jobs (id text not null, kind text not null, ref text not null, payload text not null,
     status text not null, attempts integer not null, max_attempts integer not null, run_at bigint not null,
     locked_by text, locked_until bigint, last_error text, created_at bigint not null, updated_at bigint not null)`,
];

const COPIES: [string, string][] = [
  ['users', 'id, username'],
  ['locations', 'user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source'],
  ['posts', 'user_id, id, scope, time, created_at, text, media_ids, lat, lon, source'],
  [
    'media',
    'user_id, id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration, lat, lon, caption, has_thumbnail, source',
  ],
];

// Made after the copy, as a bulk load does.
const INDEXES = [
  // The keyset pages, newest first.
  `create index locations_page on locations (user_id, scope, time, id)`,
  `create index posts_page on posts (user_id, scope, time, id)`,
  `create index media_page on media (user_id, scope, time, id)`,
  // A point already stored (same person, time and place) is dropped.
  `create unique index locations_point on locations (user_id, time, lat, lon)`,
  // The deliveries of a page of posts; the jobs a worker would take next.
  `create index deliveries_post on deliveries (user_id, post_id)`,
  `create index jobs_due on jobs (status, run_at)`,
];

export interface PlainSetup {
  /** An access token the plain server accepts, for this person and these permissions. */
  token?: { token: string; userId: string; permissions: string[] };
  /** A tracker (bench:ingest): its id, owner and token. */
  tracker?: { id: string; userId: string; token: string };
}

const tokenRow = (token: NonNullable<PlainSetup['token']>) => [
  sha256Hex(token.token),
  token.userId,
  token.permissions.join(' '),
  Date.now() + 24 * 3600_000,
];

/** A SQLite file at `target` with the plain schema and the items of Waypost's database at `source`. */
export function plainSqlite(source: string, target: string, setup: PlainSetup): void {
  const db = new SQLite(target);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`attach database '${source.replaceAll("'", "''")}' as w`);
  db.transaction(() => {
    for (const table of TABLES) db.exec(table);
    for (const [table, columns] of COPIES) db.exec(`insert into main.${table} select ${columns} from w.${table}`);
    db.exec(
      `insert into group_members select g.user_id, g.id, m.service_id
       from w.service_groups g join w.service_group_members m on m.group_id = g.id`,
    );
    for (const index of INDEXES) db.exec(index);
    if (setup.token) db.prepare('insert into tokens values (?, ?, ?, ?)').run(...tokenRow(setup.token));
    const { tracker } = setup;
    if (tracker) {
      db.prepare('insert into trackers values (?, ?, ?)').run(tracker.id, tracker.userId, sha256Hex(tracker.token));
    }
  })();
  db.exec('detach database w');
  db.exec('analyze');
  db.close();
}

/**
 * The schema `plain` in the PostgreSQL database at `url`, filled from its `public` tables; returns
 * the connection options that make `plain` the one a server sees.
 */
export async function plainPostgres(url: string, setup: PlainSetup): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin');
    await client.query('drop schema if exists plain cascade');
    await client.query('create schema plain');
    await client.query('set local search_path = plain');
    for (const table of TABLES) await client.query(table);
    for (const [table, columns] of COPIES) {
      await client.query(`insert into plain.${table} select ${columns} from public.${table}`);
    }
    await client.query(
      `insert into plain.group_members select g.user_id, g.id, m.service_id
       from public.service_groups g join public.service_group_members m on m.group_id = g.id`,
    );
    for (const index of INDEXES) await client.query(index);
    if (setup.token) await client.query('insert into plain.tokens values ($1, $2, $3, $4)', tokenRow(setup.token));
    const { tracker } = setup;
    if (tracker) {
      await client.query('insert into plain.trackers values ($1, $2, $3)', [
        tracker.id,
        tracker.userId,
        sha256Hex(tracker.token),
      ]);
    }
    await client.query('commit');
    await client.query('analyze');
  } finally {
    await client.end();
  }
  return '-c search_path=plain';
}
