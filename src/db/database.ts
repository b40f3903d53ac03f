import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from 'kysely';
import pg from 'pg';
import type { Tables } from './schema.ts';

export type Db = Kysely<Tables>;
export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  db: Db;
  dialect: DialectName;
  /**
   * SQLite only: the connection itself, for a hot path that runs one prepared statement many
   * times (imports). Use it only inside a Kysely transaction, which holds the connection.
   */
  sqlite?: SQLite.Database;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A postgres:// URL; absent: SQLite at `sqlitePath`. */
  url?: string | undefined;
  sqlitePath?: string;
  /** PostgreSQL only: connections in the pool. */
  poolSize?: number;
  /**
   * Commits return before they are on disk (SQLite synchronous=NORMAL, PostgreSQL
   * synchronous_commit=off): a crash may lose the last ones, never the database's consistency.
   * Only for a connection whose every write is redone by a later run (the import worker,
   * docs/imports.md "Writing a batch, and durability").
   */
  relaxedCommits?: boolean;
}

// PostgreSQL sends int8 (COUNT(*), BIGINT columns) as strings, because they can exceed 2^53.
// Our BIGINTs hold millisecond times and sizes, far below that, so read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function openDatabase(options: DatabaseOptions): Database {
  return options.url
    ? openPostgres(options.url, options)
    : openSqlite(options.sqlitePath ?? ':memory:', options.relaxedCommits ?? false);
}

/** The import worker's SQLite page cache, in KiB: 16 MiB (64 MiB bought little more and took the worker's peak RSS near 300 MB). */
const IMPORT_CACHE_KIB = 16_384;

function openSqlite(path: string, relaxedCommits: boolean): Database {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // SQLite makes a new database 0644 and gives its -wal and -shm the database file's mode, so
    // the file is made here first, 0600, for them all (src/lib/data-folder.ts).
    closeSync(openSync(path, 'a', 0o600));
  }
  const sqlite = new SQLite(path);
  // WAL: readers never block the writer. synchronous=FULL: a commit is on disk before we
  // acknowledge it, so a power cut cannot lose an answered request.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(relaxedCommits ? 'synchronous = NORMAL' : 'synchronous = FULL');
  // The import worker writes a million points into indexes that grow past SQLite's default page
  // cache (2 MiB); each insert into the position index then fetches a page from the OS. A larger
  // cache, for that connection only, keeps the index's hot pages (BENCHMARKS.md, "Imports").
  if (relaxedCommits) sqlite.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted rows are overwritten with zeros, not left in free pages until something reuses
  // them: a deleted item or account leaves no readable trace in the file (docs/data-ownership.md).
  sqlite.pragma('secure_delete = ON');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { ...wrap(db, 'sqlite'), sqlite };
}

/**
 * Kysely prepares every statement anew; on SQLite preparing costs about as much as running a
 * small indexed query. Queries are built from a few shapes, so prepared statements are kept
 * by their SQL text (bounded, oldest dropped first). SQLite re-prepares a cached statement by
 * itself after a schema change.
 */
function withStatementCache(sqlite: SQLite.Database, size = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare: (text) => {
      let statement = statements.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

function openPostgres(url: string, options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
  });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // that would crash the process. The next query gets a fresh connection.
  pool.on('error', () => {});
  pool.on('connect', withNamedStatements);
  if (options.relaxedCommits)
    pool.on('connect', (client) => void client.query('set synchronous_commit = off').catch(() => {}));
  return wrap(new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
}

/** Statements kept prepared per connection, at most; others are parsed each time. */
const NAMED_MAX = 1000;
/** Statements with more parameters than this (bulk inserts, long lists) are not kept. */
const NAMED_MAX_PARAMETERS = 100;
const names = new Map<string, string>();

/** The name a statement's text is kept prepared under, if it is one to keep. */
function nameOf(text: string, parameters: number): string | undefined {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (parameters > NAMED_MAX_PARAMETERS || names.size >= NAMED_MAX) return undefined;
  if (!/^\s*(select|insert|update|delete|with)\b/i.test(text)) return undefined;
  const name = `w${createHash('sha256').update(text).digest('base64url').slice(0, 40)}`;
  names.set(text, name);
  return name;
}

/**
 * PostgreSQL parses and analyses every unnamed statement anew, and Kysely sends every query
 * unnamed. The same few shapes run on every request, so each connection keeps the data
 * statements prepared under a name derived from their text (pg's named statements: the first
 * use on a connection prepares, later ones only bind and execute). Schema changes (migrations,
 * DDL) are never named, and run before the statements they would change are prepared.
 */
function withNamedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config === 'string' && Array.isArray(values) && callback === undefined) {
      const name = nameOf(config, values.length);
      if (name !== undefined) return query({ name, text: config, values });
    }
    return callback === undefined ? query(config, values) : query(config, values, callback);
  };
}

function wrap(db: Db, dialect: DialectName): Database {
  return {
    db,
    dialect,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
