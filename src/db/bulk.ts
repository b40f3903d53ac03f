// A multi-row INSERT written by hand: the query builder takes milliseconds to build the same
// statement for a batch of 1000 rows (a fifth of the cost of a batch of points, measured in
// BENCHMARKS.md), and its text is the same for every full batch, so the database's prepared
// statement (SQLite: our statement cache; PostgreSQL: its own plan) is reused.
import { CompiledQuery, SqliteAdapter } from 'kysely';
import type { Db } from './database.ts';

const texts = new Map<string, string>();

function insertText(
  sqlite: boolean,
  table: string,
  columns: readonly string[],
  rows: number,
  conflict: string,
): string {
  const key = `${sqlite}|${table}|${columns.join(',')}|${rows}|${conflict}`;
  let text = texts.get(key);
  if (text === undefined) {
    let n = 0;
    const tuple = () => `(${columns.map(() => (sqlite ? '?' : `$${++n}`)).join(', ')})`;
    const values = Array.from({ length: rows }, tuple).join(', ');
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${values} ${conflict}`;
    if (texts.size > 64) texts.clear();
    texts.set(key, text);
  }
  return text;
}

/** Bound values one statement may carry: SQLite's limit is 32766, PostgreSQL's 65535. */
const MAX_PARAMETERS = 30_000;

/**
 * Inserts `rows` in one statement, skipping any that conflict on `uniqueColumns` (ON CONFLICT
 * DO NOTHING on both databases). Returns how many rows were new. Table and column names come
 * from code, never from input. At most MAX_PARAMETERS values: callers batch.
 */
export async function insertManyIgnoringConflicts<Row extends object>(
  db: Db,
  table: string,
  columns: readonly (keyof Row & string)[],
  rows: readonly Row[],
  uniqueColumns: readonly (keyof Row & string)[],
): Promise<number> {
  if (rows.length === 0) return 0;
  if (rows.length * columns.length > MAX_PARAMETERS) throw new Error(`too many rows for one insert: ${rows.length}`);
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const conflict = `on conflict (${uniqueColumns.map((c) => `"${c}"`).join(', ')}) do nothing`;
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of columns) parameters.push(row[column]);
  const result = await db.executeQuery(
    CompiledQuery.raw(insertText(sqlite, table, columns, rows.length, conflict), parameters),
  );
  return Number(result.numAffectedRows ?? 0n);
}
