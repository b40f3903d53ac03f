// Fixed statements (src/db/fixed.ts): each call runs with its own values, a shape keeps its
// own SQL, a builder cannot slip a value of its own in, and a page read through a fixed
// statement holds what the statement built for it would hold.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestUser, type TestDatabase } from '../../test/helpers.ts';
import { migrateToLatest } from './migrate.ts';
import { runFixed, slot } from './fixed.ts';
import { selectPage, type Audience, type PageQuery } from '../items/items.repo.ts';

let t: TestDatabase;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await createTestDatabase();
  await migrateToLatest(t.database);
  alice = (await createTestUser(t.database, { username: 'alice' })).id;
  bob = (await createTestUser(t.database, { username: 'bob' })).id;
});
afterAll(async () => {
  await t.database.close();
  await t.drop();
});

const usernameOf = (id: string) => {
  const { db } = t.database;
  const build = () => db.selectFrom('users').select('username').where('id', '=', slot<string>(0)).compile();
  return runFixed(db, 'test: username', build, [id]);
};

describe('runFixed', () => {
  it("runs each call with that call's values", async () => {
    expect(await usernameOf(alice)).toEqual([{ username: 'alice' }]);
    expect(await usernameOf(bob)).toEqual([{ username: 'bob' }]);
    expect(await usernameOf('nobody')).toEqual([]);
  });

  it('keeps the SQL of each shape apart, and builds a shape once', async () => {
    const { db } = t.database;
    let builds = 0;
    const named = (column: 'username' | 'display_name') => () => {
      builds += 1;
      return db.selectFrom('users').select(column).where('id', '=', slot<string>(0)).compile();
    };
    await runFixed(db, 'test: by name', named('username'), [alice]);
    await runFixed(db, 'test: by display name', named('display_name'), [alice]);
    const again = await runFixed(db, 'test: by name', named('display_name'), [bob]);
    expect(again).toEqual([{ username: 'bob' }]);
    expect(builds).toBe(2);
  });

  it('refuses a builder that holds a value of its own instead of a slot', async () => {
    const { db } = t.database;
    const build = () => db.selectFrom('users').select('username').where('id', '=', alice).compile();
    await expect(runFixed(db, 'test: a value', build, [bob])).rejects.toThrow(/a fixed statement holds a value/);
  });
});

describe('a page through a fixed statement', () => {
  beforeAll(async () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({
      user_id: i % 3 === 0 ? bob : alice,
      id: `p${String(i).padStart(2, '0')}`,
      scope: i % 2 === 0 ? ('public' as const) : ('private' as const),
      time: 1_000 * (i % 6),
      created_at: 0,
      text: `post ${i}`,
      media_ids: '[]',
    }));
    await t.database.db.insertInto('posts').values(rows).execute();
  });

  const audiences: Audience[] = [
    { owner: '', scope: 'private' },
    { owner: '', scope: 'public' },
    { viewer: undefined },
    { viewer: '' },
  ];
  const pages: PageQuery[] = [
    { count: 3, order: 'desc' },
    { count: 3, order: 'asc', sinceMs: 1_000 },
    { count: 2, order: 'desc', untilMs: 4_000, after: { time: 3_000, id: 'p09' } },
    { count: 5, order: 'asc', sinceMs: 1_000, untilMs: 5_000, after: { time: 1_000, id: 'p01' } },
  ];

  it('holds the rows the statement built for the call holds, for every shape and person', async () => {
    const { db } = t.database;
    for (const person of [alice, bob]) {
      for (const template of audiences) {
        const audience: Audience =
          'owner' in template
            ? { ...template, owner: person }
            : { viewer: template.viewer === undefined ? undefined : person };
        for (const page of pages) {
          // A filter that holds for every row sends the call through a statement built for it.
          const built = await selectPage(db, 'posts', audience, page, sql<boolean>`1 = 1`);
          const fixed = await selectPage(db, 'posts', audience, page);
          expect(fixed).toEqual(built);
        }
      }
    }
  });

  it('reads the pages a person expects', async () => {
    const { db } = t.database;
    const ids = async (audience: Audience, page: PageQuery) =>
      (await selectPage(db, 'posts', audience, page)).rows.map((row) => row.id);
    expect(await ids({ owner: alice, scope: 'private' }, { count: 10, order: 'asc' })).toEqual([
      'p01',
      'p07',
      'p05',
      'p11',
    ]);
    expect(await ids({ owner: bob, scope: 'private' }, { count: 10, order: 'desc' })).toEqual(['p09', 'p03']);
    expect(await ids({ viewer: undefined }, { count: 3, order: 'desc', untilMs: 4_000 })).toEqual([
      'p08',
      'p02',
      'p06',
    ]);
  });
});
