// Seeding PostgreSQL for the benchmarks: a fresh database migrated by Waypost, then rows made
// by the server itself (generate_series), the same shapes bench/seed.ts writes on SQLite.
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { BASE_TIME } from './seed.ts';

async function admin(url: string, statement: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const target = new URL(url);
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    return await client.query(statement, values);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the server at `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Whether database `name` exists on the server at `serverUrl`. */
export async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  const { rowCount } = await admin(serverUrl, 'select 1 from pg_database where datname = $1', [name]);
  return rowCount === 1;
}

/** Creates an empty database `name` (a name made by the benchmarks: letters, digits, _). */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a benchmark database name: ${name}`);
  await admin(serverUrl, `create database ${name}`);
  return databaseUrl(serverUrl, name);
}

/** Drops database `name`, closing its connections. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, `drop database if exists ${name} with (force)`);
}

/** Creates database `name` as a copy of database `template` (which must have no connections open). */
export async function copyDatabase(serverUrl: string, template: string, name: string): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name) || !/^[a-z0-9_]+$/.test(template)) throw new Error('not benchmark database names');
  await admin(serverUrl, `create database ${name} template ${template}`);
  return databaseUrl(serverUrl, name);
}

/** Creates and migrates a database of its own under `serverUrl`; returns its URL and a drop function. */
export async function freshPostgres(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `waypost_bench_${Date.now()}_${process.pid}`;
  const url = await createDatabase(serverUrl, name);
  const database = openDatabase({ url });
  await migrateToLatest(database);
  await database.close();
  return { url, drop: () => dropDatabase(serverUrl, name) };
}

/**
 * Brings the planner's statistics up to date, as autovacuum would in time: a round's writes add
 * rows beyond the seeded ones, and a plan made on stale statistics can swing a page's speed
 * tenfold between rounds, for both servers alike.
 */
export async function analyzePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/** A user `name` (lower case) with id `id`, as seedUser in bench/seed.ts writes one on SQLite. */
export async function seedUserPostgres(client: pg.Client, id: string, name: string): Promise<void> {
  await client.query(
    `insert into users (id, username, username_key, password_hash, display_name, bio, created_at, updated_at)
     values ($1, $2, $2, 'x', $2, '', $3, $3)`,
    [id, name, BASE_TIME],
  );
}

/** A user, `counts` private items of each kind, and `publicPosts` public posts of a second user. */
export async function seedPostgres(
  url: string,
  counts: { locations: number; posts: number; media: number },
  publicPosts: number,
): Promise<{ owner: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await seedUserPostgres(client, 'owner-id', 'owner');
    await seedUserPostgres(client, 'reader-id', 'reader');
    const time = `${BASE_TIME} + i * 1000`;
    await client.query(
      `insert into locations (user_id, id, scope, time, created_at, lat, lon, alt, accuracy, speed, heading, source)
       select 'owner-id', 'L' || lpad(i::text, 9, '0'), 'private', ${time}, ${time}, 52.5 + (i % 997) / 1e4,
              13.4 + (i % 991) / 1e4, 34, 5, 1.5, 90, null from generate_series(0, $1 - 1) i`,
      [counts.locations],
    );
    await client.query(
      `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
       select 'owner-id', 'P' || lpad(i::text, 9, '0'), 'private', ${time}, ${time},
              'Private note ' || i || ': a short note of about the length people write.',
              '["01JB2Q7Y8XWZ5V3K4M6N8P0R2S"]', 52.52, 13.405, null from generate_series(0, $1 - 1) i`,
      [counts.posts],
    );
    await client.query(
      `insert into media (user_id, id, scope, time, created_at, kind, mime_type, size, sha256, width, height, duration,
                          lat, lon, caption, has_thumbnail, source)
       select 'owner-id', 'M' || lpad(i::text, 9, '0'), 'private', ${time}, ${time}, 'image', 'image/jpeg', 2345678,
              repeat('ab', 32), 4032, 3024, null, 52.52, 13.405, 'Photo ' || i || ' by the lake', 1, null
       from generate_series(0, $1 - 1) i`,
      [counts.media],
    );
    await client.query(
      `insert into posts (user_id, id, scope, time, created_at, text, media_ids, lat, lon, source)
       select 'reader-id', 'Q' || lpad(i::text, 9, '0'), 'public', ${time}, ${time},
              'Post number ' || i || ': a short note of about the length people write.', '[]', null, null, null
       from generate_series(0, $1 - 1) i`,
      [publicPosts],
    );
    await client.query('analyze');
  } finally {
    await client.end();
  }
  return { owner: 'owner-id' };
}
