import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../test/cli.ts';
import { createTestDatabase, DIALECT, type TestDatabase } from '../../test/helpers.ts';
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
