// `waypost export` in a child process, as an operator runs it: the same archive as GET /export,
// written whole or not at all, and no progress line when stderr is not a terminal.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../test/cli.ts';
import { createTestDatabase, createTestUser, type TestDatabase } from '../../test/helpers.ts';
import { insertItems } from '../../test/items.ts';
import { readZip } from '../../test/zip.ts';
import { migrateToLatest } from '../db/migrate.ts';

let test: TestDatabase;
let env: Record<string, string>;
let outDir: string;
beforeAll(async () => {
  test = await createTestDatabase();
  await migrateToLatest(test.database);
  env = cliEnv(test);
  outDir = mkdtempSync(join(tmpdir(), 'waypost-export-'));
});
afterAll(async () => {
  await test.database.close();
  await test.drop();
  rmSync(outDir, { recursive: true, force: true });
});

describe('waypost export', () => {
  it('writes the account to a ZIP file', async () => {
    const user = await createTestUser(test.database, { username: 'cli_exporter' });
    const other = await createTestUser(test.database);
    const posts = await insertItems(test.database, 'posts', user.id, [{ scope: 'public' }, { scope: 'private' }]);
    const points = await insertItems(test.database, 'locations', user.id, [{ scope: 'private', lat: 1.5, lon: 2.5 }]);
    await insertItems(test.database, 'posts', other.id, [{ scope: 'public' }]);
    const target = join(outDir, 'out.zip');
    const result = await runCli(['export', '--user', 'CLI_Exporter', target], { env });
    expect(result).toEqual({ code: 0, stdout: '', stderr: `exported cli_exporter to ${target}\n` });
    expect(existsSync(`${target}.part`)).toBe(false);
    const zip = await readZip(readFileSync(target));
    expect(zip.get('README.txt')!.toString().split('\n').slice(0, 3)).toEqual([
      'format: waypost-export',
      'version: 1',
      'username: cli_exporter',
    ]);
    const ids = zip
      .get('posts.jsonl')!
      .toString()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids.sort()).toEqual([...posts].sort());
    const feature = JSON.parse(zip.get('locations.geojsonseq')!.toString().slice(1)) as {
      id: string;
      geometry: unknown;
    };
    expect(feature).toMatchObject({ id: points[0], geometry: { type: 'Point', coordinates: [2.5, 1.5] } });
  });

  it('says how it is used, and names an unknown account', async () => {
    const usage = await runCli(['export', join(outDir, 'x.zip')], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('waypost export --user <username> <file.zip>');
    const unknown = await runCli(['export', '--user', 'nobody_at_all', join(outDir, 'y.zip')], { env });
    expect(unknown).toMatchObject({ code: 1, stderr: 'waypost: There is no user "nobody_at_all".\n' });
    expect(existsSync(join(outDir, 'y.zip'))).toBe(false);
  });
});
