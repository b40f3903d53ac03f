import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../test/cli.ts';
import { createTestDatabase, createTestUser, DIALECT, type TestDatabase } from '../../test/helpers.ts';
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';

let test: TestDatabase | undefined;
afterEach(async () => {
  await test?.database.close();
  await test?.drop();
  test = undefined;
});

describe(`migrations on ${DIALECT}`, () => {
  it('apply every migration once, in order, and are idempotent', async () => {
    test = await createTestDatabase();
    expect(await migrateToLatest(test.database)).toEqual(Object.keys(migrations));
    expect(await migrateToLatest(test.database)).toEqual([]);
    const tables = await test.database.db.introspection.getTables();
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['users', 'setup_tokens']));
  });

  it('are safe when several processes migrate at once', async () => {
    test = await createTestDatabase();
    const runs = await Promise.all([1, 2, 3, 4].map(() => runCli(['migrate'], { env: cliEnv(test!) })));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    // Exactly one of them applied the migrations; the others found nothing left to do.
    const applied = runs.filter((r) => r.stderr.startsWith('applied '));
    expect(applied).toHaveLength(1);
    expect(applied[0]?.stderr.trim()).toBe(`applied ${Object.keys(migrations).join(', ')}`);
    const { rows } = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(test.database.db);
    expect(Number(rows[0]?.n)).toBe(Object.keys(migrations).length);
  });

  if (DIALECT === 'postgres') {
    it('keep data statements prepared per PostgreSQL connection, and never DDL or long parameter lists', async () => {
      test = await createTestDatabase();
      const single = openDatabase({ url: test.databaseUrl!, poolSize: 1 });
      try {
        const db = single.db;
        for (const n of [1, 2])
          expect((await sql<{ n: number }>`select ${n}::int as n`.execute(db)).rows).toEqual([{ n }]);
        await sql`create table named_probe (x int)`.execute(db);
        const many = Array.from({ length: 101 }, (_, i) => i);
        await sql`select ${sql.join(many.map((i) => sql`${i}::int`))}`.execute(db);
        const { rows } = await sql<{
          name: string;
          statement: string;
        }>`select name, statement from pg_prepared_statements order by statement`.execute(db);
        expect(rows.map((row) => row.statement)).toEqual([
          'select $1::int as n',
          'select name, statement from pg_prepared_statements order by statement',
        ]);
        expect(rows.every((row) => /^w[\w-]{40}$/.test(row.name))).toBe(true);
      } finally {
        await single.close();
      }
    });
  }

  if (DIALECT === 'postgres') {
    it('give the search index a statistics target of 1,000 (migration 0049)', async () => {
      test = await createTestDatabase();
      await migrateToLatest(test.database);
      const { rows } = await sql<{ target: number }>`select attstattarget::int as target from pg_attribute
        where attrelid = 'search_docs'::regclass and attname = 'doc'`.execute(test.database.db);
      expect(rows).toEqual([{ target: 1000 }]);
    });
  }

  if (DIALECT === 'sqlite') {
    it('open SQLite with WAL, foreign keys and a busy timeout', async () => {
      test = await createTestDatabase();
      const pragma = async (name: string) => (await sql.raw(`pragma ${name}`).execute(test!.database.db)).rows[0];
      expect(await pragma('journal_mode')).toEqual({ journal_mode: 'wal' });
      expect(await pragma('foreign_keys')).toEqual({ foreign_keys: 1 });
      expect(await pragma('busy_timeout')).toEqual({ timeout: 5000 });
    });
  }
});

describe('migration 0039', () => {
  it('links each post to the media its media_ids names, once each, across batches', async () => {
    test = await createTestDatabase();
    await migrateToLatest(test.database);
    const db = test.database.db;
    const { linkPostMedia } = await import('./migrations/0039_post_media.ts');
    const user = await createTestUser(test.database);
    // Written as posts were before the link table, without it.
    const post = (id: string, media: string[]) =>
      sql`insert into posts (id, user_id, scope, time, created_at, text, media_ids)
        values (${id}, ${user.id}, 'public', 0, 0, 't', ${JSON.stringify(media)})`.execute(db);
    for (let i = 0; i < 1200; i += 1)
      await post(`p${String(i).padStart(4, '0')}`, i % 600 === 0 ? ['m1', 'm2', 'm1'] : []);
    await linkPostMedia(db as never);
    const { rows } = await sql<{ post_id: string; medium_id: string }>`select post_id, medium_id from post_media
      order by post_id, medium_id`.execute(db);
    expect(rows).toEqual([
      { post_id: 'p0000', medium_id: 'm1' },
      { post_id: 'p0000', medium_id: 'm2' },
      { post_id: 'p0600', medium_id: 'm1' },
      { post_id: 'p0600', medium_id: 'm2' },
    ]);
  });
});
