// `npm run bench:search`: full-text search (docs/api.md "Search") over BENCH_POSTS posts
// (default 1,000,000) of one person, on SQLite and, with BENCH_PG_URL (a server; the benchmark
// makes and drops a database of its own), on PostgreSQL. BENCH_SQLITE=0 leaves SQLite out.
//
// The posts are written straight into the database in bulk (multi-row inserts, the index kept by
// migration 0034's triggers as for any write), with text drawn from a made-up vocabulary of
// 20,000 words with Zipf frequencies (the commonest in most posts, the rarest in a handful), a
// tenth of the words accented. Then, for each sort of query, BENCH_QUERIES queries (different
// words each), BENCH_ROUNDS rounds: our search through the logic function the route calls
// (`search`, the whole answer: the page of 20, the items read again, the snippets), beside the
// bare engine query on a minimal table of its own (an FTS5 table / a table with a GIN-indexed
// tsvector holding only the texts, ids in time order): MATCH or @@ and ORDER BY id DESC LIMIT 21.
// Medians of the rounds' p50 and p99, with their spread. Nothing here asserts a number.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { cursorsFor } from '../src/core/cursors.ts';
import { PERMISSIONS, type Permission } from '../src/core/permissions.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newIds } from '../src/lib/ids.ts';
import { fold } from '../src/search/search.query.ts';
import { ownSearcher, search } from '../src/search/search.logic.ts';
import { createUser } from '../src/users/users.logic.ts';
import { log, median, spread } from './harness.ts';
import { createDatabase, databaseExists, databaseUrl, dropDatabase } from './seed-pg.ts';

const POSTS = Number(process.env.BENCH_POSTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const VOCABULARY = 20_000;
const BATCH = 500;
const START = Date.UTC(2016, 0, 1);
const STEP = 300_000; // a post every five minutes, about ten years for a million

/** A small deterministic generator, so both databases get the same posts and queries. */
function random(seed: number) {
  // mulberry32: 32-bit integer steps (Math.imul), so no precision is lost as with a float LCG.
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ra',
  'ten',
  'su',
  'vo',
  'ber',
  'lin',
  'do',
  'pe',
  'ru',
  'sa',
  'ni',
  'go',
  'the',
  'mar',
  'a',
  'e',
  'on',
];
const ACCENTED: Record<string, string> = { a: 'á', e: 'é', o: 'ô', u: 'ü' };

/** The vocabulary, commonest first; every tenth word carries an accent. */
function vocabulary(): string[] {
  const next = random(42);
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const length = 1 + Math.floor(next() * 4);
    let word = '';
    for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
    if (word.length < 3) continue;
    if (words.size % 10 === 9) word = word.replace(/[aeou]/, (c) => ACCENTED[c]!);
    words.add(word);
  }
  return [...words];
}

/** Draws word ranks with P(rank r) proportional to 1/r. */
function zipf(next: () => number): () => number {
  const cumulative = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r++) cumulative[r] = sum += 1 / (r + 1);
  return () => {
    const target = next() * sum;
    let low = 0;
    let high = VOCABULARY - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

function* texts(words: string[], count: number): Generator<string> {
  const next = random(7);
  const rank = zipf(next);
  for (let i = 0; i < count; i++) {
    const length = 5 + Math.floor(next() * 26);
    const text: string[] = [];
    for (let w = 0; w < length; w++) text.push(words[rank()]!);
    yield `${text.join(' ')}.`;
  }
}

async function seed(database: Database, words: string[]): Promise<string> {
  const { db } = database;
  const user = await createUser(
    db,
    { username: 'searcher', password: 'bench password long enough' },
    { log2N: 10, r: 8, p: 1 },
  );
  const begin = performance.now();
  let batch: { id: string; time: number; text: string; scope: 'public' | 'private' }[] = [];
  let written = 0;
  const flush = async () => {
    const ids = newIds(batch.length);
    const rows = batch.map((post, i) => ({
      user_id: user.id,
      id: ids[i]!,
      scope: post.scope,
      time: post.time,
      created_at: post.time,
      text: post.text,
      media_ids: '[]',
      lat: null,
      lon: null,
      source: null,
    }));
    await db.insertInto('posts').values(rows).execute();
    // The minimal table of the baseline: the same texts, ids in time order.
    if (database.dialect === 'sqlite') {
      await sql`insert into bench_bare (rowid, body) values ${sql.join(
        batch.map((post, i) => sql`(${written + i + 1}, ${post.text})`),
      )}`.execute(db);
    } else {
      await sql`insert into bench_bare (id, body) values ${sql.join(
        batch.map((post, i) => sql`(${written + i + 1}, ${post.text})`),
      )}`.execute(db);
    }
    written += batch.length;
    batch = [];
  };
  let i = 0;
  for (const text of texts(words, POSTS)) {
    batch.push({ id: '', time: START + i * STEP, text, scope: i % 2 === 0 ? 'public' : 'private' });
    i++;
    if (batch.length === BATCH) {
      await flush();
      if (written % 100_000 === 0) log(`  ${written} posts, ${((performance.now() - begin) / 1000).toFixed(0)} s`);
    }
  }
  if (batch.length > 0) await flush();
  if (database.dialect === 'postgres') await sql`analyze`.execute(db);
  log(`  seeded ${POSTS} posts in ${((performance.now() - begin) / 1000).toFixed(0)} s`);
  return user.id;
}

async function bareTable(database: Database): Promise<void> {
  if (database.dialect === 'sqlite') {
    await sql`create virtual table bench_bare using fts5(body, tokenize='unicode61 remove_diacritics 2')`.execute(
      database.db,
    );
  } else {
    await sql`create table bench_bare (id bigint primary key, body text not null,
      doc tsvector generated always as (to_tsvector('simple'::regconfig, body)) stored)`.execute(database.db);
    await sql`create index bench_bare_doc on bench_bare using gin (doc)`.execute(database.db);
    // The same planner statistics as search_docs.doc (migration 0049), so the floor is as well planned.
    await sql`alter table bench_bare alter column doc set statistics 1000`.execute(database.db);
  }
}

/** The sorts of query: each makes the n-th query's text from the vocabulary. */
function querySorts(words: string[]): [string, (n: number) => { ours: string; bare: string }][] {
  const plain = (word: string) => fold(word);
  const pick = (from: number, to: number, n: number, salt: number) =>
    words[from + ((n * 7919 + salt * 104_729) % (to - from))]!;
  const accented = words.filter((word) => word !== fold(word));
  return [
    ['a common word (ranks 1-10)', (n) => ({ ours: pick(0, 10, n, 1), bare: `"${pick(0, 10, n, 1)}"` })],
    ['a middling word (ranks 100-1000)', (n) => ({ ours: pick(100, 1000, n, 2), bare: `"${pick(100, 1000, n, 2)}"` })],
    [
      'a rare word (ranks 5000-20000)',
      (n) => ({ ours: pick(5000, 20000, n, 3), bare: `"${pick(5000, 20000, n, 3)}"` }),
    ],
    [
      'two words (ranks 10-300)',
      (n) => {
        const [a, b] = [pick(10, 300, n, 4), pick(10, 300, n, 5)];
        return { ours: `${a} ${b}`, bare: `"${a}" AND "${b}"` };
      },
    ],
    [
      'a phrase of two common words',
      (n) => {
        const [a, b] = [pick(0, 30, n, 6), pick(0, 30, n, 7)];
        return { ours: `"${a} ${b}"`, bare: `"${a} ${b}"` };
      },
    ],
    [
      'a prefix (first 4 letters, ranks 50-2000)',
      (n) => {
        const stem = [...plain(pick(50, 2000, n, 8))].slice(0, 4).join('');
        return { ours: `${stem}*`, bare: `"${stem}" *` };
      },
    ],
    [
      'an accented word typed without accents',
      (n) => {
        const word = accented[(n * 31) % Math.min(accented.length, 500)]!;
        return { ours: plain(word), bare: `"${plain(word)}"` };
      },
    ],
  ];
}

/** The same bare query in PostgreSQL's syntax (the benchmark's own words: letters only). */
function bareTsQuery(fts5: string): string {
  const phrase = /^"(\S+) (\S+)"$/.exec(fts5);
  if (phrase) return `${phrase[1]} <-> ${phrase[2]}`;
  const prefix = /^"(\S+)" \*$/.exec(fts5);
  if (prefix) return `${prefix[1]}:*`;
  return fts5.replaceAll('"', '').replaceAll(' AND ', ' & ');
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const begin = performance.now();
  await work();
  return performance.now() - begin;
}

async function measure(label: string, database: Database, userId: string, words: string[]) {
  const { db } = database;
  const auth = {
    userId,
    username: 'searcher',
    clientId: 'bench',
    grantId: '',
    expiresAt: Infinity,
    permissions: new Set(Object.keys(PERMISSIONS) as Permission[]),
  };
  const cursors = cursorsFor(Buffer.alloc(32, 1));
  const searcher = ownSearcher(auth, {});
  const bare = (query: string) =>
    database.dialect === 'sqlite'
      ? sql`select rowid from bench_bare where bench_bare match ${query} order by rowid desc limit 21`.execute(db)
      : sql`select id from bench_bare where doc @@ to_tsquery('simple', ${bareTsQuery(query)})
          order by id desc limit 21`.execute(db);
  const all: { ours: number[]; bare: number[] } = { ours: [], bare: [] };
  for (const [name, make] of querySorts(words)) {
    const rounds = { ours50: [] as number[], ours99: [] as number[], bare50: [] as number[], bare99: [] as number[] };
    let found = 0;
    const slowest: [number, string][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ours: number[] = [];
      const floor: number[] = [];
      for (let n = 0; n < QUERIES; n++) {
        const query = make(n);
        ours.push(
          await timed(async () => {
            const page = await search(db, 'http://bench', cursors, searcher, { q: query.ours, count: 20 });
            if (round === 0) found += page.items.length;
          }),
        );
        slowest.push([ours.at(-1)!, query.ours]);
        floor.push(await timed(() => bare(query.bare)));
      }
      rounds.ours50.push(percentile(ours, 0.5));
      rounds.ours99.push(percentile(ours, 0.99));
      rounds.bare50.push(percentile(floor, 0.5));
      rounds.bare99.push(percentile(floor, 0.99));
      all.ours.push(...ours);
      all.bare.push(...floor);
    }
    const cell = (values: number[]) => `${median(values).toFixed(1)} (${spread(values, 1)})`;
    log(
      `| ${label} | ${name} | ${cell(rounds.ours50)} | ${cell(rounds.ours99)} | ${cell(rounds.bare50)} | ${cell(rounds.bare99)} | ${(found / QUERIES).toFixed(1)} |`,
    );
    // BENCH_SLOWEST=n names the n slowest of our queries of each sort, to study their plans.
    const show = Number(process.env.BENCH_SLOWEST ?? 0);
    if (show > 0) {
      const named = slowest.sort((a, b) => b[0] - a[0]).slice(0, show);
      log(`  slowest: ${named.map(([ms, q]) => `${q} ${ms.toFixed(1)} ms`).join(', ')}`);
    }
  }
  log(
    `${label}: every query of every sort: p99 ${percentile(all.ours, 0.99).toFixed(1)} ms (bare ${percentile(all.bare, 0.99).toFixed(1)} ms)`,
  );
}

const words = vocabulary();
const work = mkdtempSync(join(tmpdir(), 'waypost-bench-search-'));
log(`${POSTS} posts, ${QUERIES} queries of each sort, ${ROUNDS} rounds; ms`);
log('| database | query | ours p50 | ours p99 | bare p50 | bare p99 | results of 20 |');
log('| --- | --- | --- | --- | --- | --- | --- |');
try {
  if (process.env.BENCH_SQLITE !== '0') {
    const database = openDatabase({ sqlitePath: join(work, 'search.db') });
    await migrateToLatest(database);
    await bareTable(database);
    const userId = await seed(database, words);
    await measure('SQLite', database, userId, words);
    await database.close();
  }
  if (process.env.BENCH_PG_URL) {
    // BENCH_PG_KEEP=1 keeps the seeded database for the next run (seeding takes minutes).
    const keep = process.env.BENCH_PG_KEEP === '1';
    const name = keep ? `waypost_bench_search_${POSTS}` : `waypost_bench_search_${process.pid}`;
    const seeded = keep && (await databaseExists(process.env.BENCH_PG_URL, name));
    const url = seeded
      ? databaseUrl(process.env.BENCH_PG_URL, name)
      : await createDatabase(process.env.BENCH_PG_URL, name);
    const database = openDatabase({ url });
    try {
      await migrateToLatest(database);
      let userId: string;
      if (seeded) {
        userId = (
          await database.db
            .selectFrom('users')
            .select('id')
            .where('username', '=', 'searcher')
            .executeTakeFirstOrThrow()
        ).id;
        log(`  reusing the seeded database ${name}`);
      } else {
        await bareTable(database);
        userId = await seed(database, words);
      }
      await measure('PostgreSQL', database, userId, words);
    } finally {
      await database.close();
      if (!keep) await dropDatabase(process.env.BENCH_PG_URL, name);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
