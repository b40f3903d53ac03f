// PostgreSQL's planner picks the search plan (docs/api.md "Search") from how many documents it
// expects a query's words to match: few, read them from the GIN index and sort by time; many,
// walk the time index newest first and stop after a page. It knows a word's share only when the
// word is among the column's most common elements, whose number is ten times the column's
// statistics target; a word outside them is taken as rarer than the rarest listed. At the
// default target (100, so 1,000 words) a prefix matching thousands of documents was guessed at
// hundreds and read from the GIN index: 28 ms where the time walk takes 0.5 ms (docs/design.md
// "Search"). A target of 1,000 keeps 10,000 words; ANALYZE of a million documents takes 2 s.
// SQLite's FTS5 walks its matches newest first whatever the words: nothing to do there.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter table search_docs alter column doc set statistics 1000`.execute(db);
}
