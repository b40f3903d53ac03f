// Test helpers: an app on a fresh, migrated database of its own, and factories.
// SQLite in a temporary folder by default; a fresh PostgreSQL database when TEST_DATABASE_URL
// is set (.ci/run runs the suite both ways).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createUser, type User } from '../src/users/users.logic.ts';
import { configuredStore } from '../src/storage/open.ts';
import { testStorageEnv } from './s3.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const DIALECT = TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** A fixed key, so tests never write one; 32 bytes as hex. */
export const TEST_SECRET_KEY = 'a1'.repeat(32);

export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    WAYPOST_DATA_DIR: dataDir,
    WAYPOST_SECRET_KEY: TEST_SECRET_KEY,
    WAYPOST_BASE_URL: 'http://waypost.test',
    WAYPOST_LOG_LEVEL: 'silent',
    ...testStorageEnv(dataDir),
    ...env,
  });
}

export interface TestDatabase {
  database: Database;
  dataDir: string;
  /** PostgreSQL: the URL of this test's own database. */
  databaseUrl?: string;
  /** Opens another connection to the same database (e.g. for a second process's view). */
  reopen(): Database;
  drop(): Promise<void>;
}

/** A fresh, empty, unmigrated database on the dialect under test. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'waypost-test-'));
  if (!TEST_DATABASE_URL) {
    const path = join(dataDir, 'waypost.db');
    return {
      database: openDatabase({ sqlitePath: path }),
      dataDir,
      reopen: () => openDatabase({ sqlitePath: path }),
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  // One database per test file (not a schema): Kysely's migrator introspects every schema of
  // its database, which fails when another test file drops its schema at the same moment.
  const name = `waypost_t_${randomBytes(6).toString('hex')}`;
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  await adminQuery(`create database ${name}`);
  const open = () => openDatabase({ url: url.toString(), poolSize: 4 });
  return {
    database: open(),
    dataDir,
    databaseUrl: url.toString(),
    reopen: open,
    drop: async () => {
      await adminQuery(`drop database if exists ${name} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  /** PostgreSQL: the URL of the app's own database (for a second process to share it). */
  databaseUrl?: string | undefined;
  config: Config;
  close(): Promise<void>;
  /** Drops the database only (for a test that closed the connection itself). */
  drop(): Promise<void>;
}

export interface TestAppOptions {
  /** Configuration variables on top of the test defaults. */
  env?: Record<string, string>;
  /** Registers extra routes (test-only) before the app is ready. */
  extend?: (app: FastifyInstance) => void | Promise<void>;
  /** A logger, for tests that read what is logged; none by default. */
  logger?: FastifyBaseLogger;
}

/** buildApp on a fresh migrated database; `close()` drops the database too. */
export async function buildTestApp({ env = {}, extend, logger }: TestAppOptions = {}): Promise<TestApp> {
  const test = await createTestDatabase();
  await migrateToLatest(test.database);
  const config = testConfig(test.dataDir, env);
  const app = await buildApp({ config, database: test.database, ...(logger ? { logger } : {}) });
  await extend?.(app);
  await app.ready();
  return {
    app,
    database: test.database,
    databaseUrl: test.databaseUrl,
    config,
    close: async () => {
      await app.close();
      await test.database.close();
      await test.drop();
      await emptyTestStore(config);
    },
    drop: () => test.drop(),
  };
}

/** A test app's objects in the test bucket removed (the folder store goes with the data folder). */
async function emptyTestStore(config: Config): Promise<void> {
  const store = configuredStore(config);
  if (store.kind === 'local') return;
  const keys: string[] = [];
  for await (const object of store.list('')) keys.push(object.key);
  for (const key of keys) await store.remove(key);
}

let userCounter = 0;

/** Creates a user with a cheap password hash (tests need speed, not strength). */
export async function createTestUser(
  database: Database,
  overrides: { username?: string; password?: string; displayName?: string; bio?: string } = {},
): Promise<User & { password: string }> {
  userCounter += 1;
  const password = overrides.password ?? 'correct horse battery staple';
  const user = await createUser(
    database.db,
    {
      username: overrides.username ?? `user${userCounter}_${randomBytes(3).toString('hex')}`,
      password,
      displayName: overrides.displayName,
      bio: overrides.bio,
    },
    { log2N: 10, r: 8, p: 1 },
  );
  return { ...user, password };
}

/** Rows in a table, for asserting that nothing was (or something was) stored. */
export async function countRows(database: Database, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(database.db);
  return Number(rows[0]?.n ?? 0);
}
