import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../../test/cli.ts';
import { createTestDatabase, createTestUser, testConfig, type TestDatabase } from '../../test/helpers.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { makeZip } from '../../test/zip.ts';
import { importCommand } from './imports.cli.ts';

let test: TestDatabase;
let env: Record<string, string>;
const files = mkdtempSync(join(tmpdir(), 'waypost-import-cli-'));
beforeAll(async () => {
  test = await createTestDatabase();
  await migrateToLatest(test.database);
  await createTestUser(test.database, { username: 'walker' });
  env = cliEnv(test);
});
afterAll(async () => {
  await test.database.close();
  await test.drop();
});

describe('waypost import', () => {
  it('imports each file for the user, one summary line each, and leaves the files where they are', async () => {
    const gpx = join(files, 'walk.gpx');
    writeFileSync(
      gpx,
      '<gpx version="1.1"><trk><trkseg><trkpt lat="48.1" lon="11.5"><time>2023-01-01T00:00:00Z</time></trkpt><trkpt lat="48.2" lon="11.6"/></trkseg></trk></gpx>',
    );
    const records = join(files, 'Records.json');
    writeFileSync(
      records,
      JSON.stringify({
        locations: [
          { latitudeE7: 481_000_000, longitudeE7: 115_000_000, timestamp: '2023-01-01T00:00:00Z' },
          { latitudeE7: 482_000_000, longitudeE7: 116_000_000, timestamp: '2023-01-01T00:01:00Z' },
        ],
      }),
    );
    const result = await runCli(['import', '--user', 'walker', gpx, records], { env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^walk\.gpx: done, gpx, 1 points stored, 0 duplicates, 1 skipped, 0 errors \(import \w+\)$/,
      ),
      expect.stringMatching(
        /^Records\.json: done, google-records, 1 points stored, 1 duplicates, 0 skipped, 0 errors \(import \w+\)$/,
      ),
    ]);
    // No progress line: standard output is not a terminal here.
    expect(result.stdout).not.toContain('\r');
    expect(existsSync(gpx) && existsSync(records)).toBe(true);
    const rows = await test.database.db.selectFrom('imports').select(['status', 'file_owned']).execute();
    expect(rows).toEqual([
      { status: 'done', file_owned: 0 },
      { status: 'done', file_owned: 0 },
    ]);
    const jobs = await test.database.db.selectFrom('jobs').select(['status', 'kind']).execute();
    expect(jobs).toEqual([
      { status: 'done', kind: 'import' },
      { status: 'done', kind: 'import' },
    ]);
    const points = await test.database.db.selectFrom('locations').select(['lat', 'lon']).orderBy('time').execute();
    expect(points).toEqual([
      { lat: 48.1, lon: 11.5 },
      { lat: 48.2, lon: 11.6 },
    ]);
  });

  it('on a terminal, shows a progress line that it clears at the end', async () => {
    const file = join(files, 'more.json');
    const locations = Array.from({ length: 2500 }, (_, i) => ({
      latitudeE7: i,
      longitudeE7: i,
      timestampMs: String(1e12 + i),
    }));
    writeFileSync(file, JSON.stringify({ locations }));
    const written: string[] = [];
    const printed: string[] = [];
    const ok = await importCommand(
      test.database,
      testConfig(test.dataDir),
      ['--user', 'walker', file],
      { print: (line) => printed.push(line), info: () => {} },
      { progress: { write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream },
    );
    expect(ok).toBe(true);
    expect(written[0]).toMatch(/^\rmore\.json: +\d+% {2}2000 points, 2000 stored, 0 duplicates, 0 skipped$/);
    expect(written.at(-1)).toBe('\r\x1b[K');
    expect(printed).toEqual([expect.stringMatching(/^more\.json: done, google-records, 2500 points stored/)]);
  });

  it('restores a Waypost export, saying what came back of each kind', async () => {
    const file = join(files, 'export.zip');
    const post = {
      id: '01J0000000000000000000CLI1',
      text: 'from the other server',
      scope: 'private',
      time: 1_650_000_000,
      created_at: 1_650_000_000,
      media_ids: [],
      location: null,
      source: null,
    };
    const point = {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [11.5, 48.1] },
      properties: { id: '01J0000000000000000000CLI2', scope: 'private', time: 1_650_000_001 },
    };
    writeFileSync(
      file,
      makeZip([
        { name: 'README.txt', data: 'format: waypost-export\nversion: 1\n\n' },
        { name: 'posts.jsonl', data: `${JSON.stringify(post)}\n` },
        { name: 'locations.geojsonseq', data: `\u001e${JSON.stringify(point)}\n` },
      ]),
    );
    const printed: string[] = [];
    const ok = await importCommand(test.database, testConfig(test.dataDir), ['--user', 'walker', file], {
      print: (line) => printed.push(line),
      info: () => {},
    });
    expect(ok).toBe(true);
    expect(printed).toEqual([
      expect.stringMatching(
        /^export\.zip: done, waypost-export, 0 settings, 0 services, 0 groups, 0 views, 0 places, 0 visit corrections, 0 media, 1 posts, 1 points stored, 0 duplicates, 0 skipped, 0 errors \(import \w+\)$/,
      ),
    ]);
    const texts = await test.database.db.selectFrom('posts').select(['id', 'text']).execute();
    expect(texts).toEqual([{ id: post.id, text: post.text }]);
    expect(existsSync(file)).toBe(true);
  });

  it('refuses a file in no location format, an unknown user, and no file', async () => {
    const text = join(files, 'notes.txt');
    writeFileSync(text, 'hello\n');
    const refused = await runCli(['import', '--user', 'walker', text], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'waypost: The file is not a location history this server reads: it looks like text in none of the formats.',
    );
    const nobody = await runCli(['import', '--user', 'nobody', text], { env });
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/^waypost: /);
    expect((await runCli(['import', '--user', 'walker'], { env })).code).toBe(2);
  });
});
