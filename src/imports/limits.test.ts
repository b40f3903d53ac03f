// Hostile files against the readers' bounds (READ_LIMITS, docs/imports.md "Limits"): the
// bracket bomb of issue 30 and its kin in every format, each refused with the limit's code
// once it passes the bound, with the records before it kept, and real shapes still read.
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../test/zip.ts';
import type { FormatName } from './readers/formats.ts';
import { readers } from './readers/index.ts';
import { READ_LIMITS, type ImportRecord } from './readers/reader.ts';
import { nestsTooDeep } from '../lib/json-depth.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'waypost-limits-'));
const CHUNK = 256 * 1024;

/** Every record a reader yields for `content`, in chunks as the import reads a file. */
async function read(format: FormatName, content: Buffer | string, name = 'file'): Promise<ImportRecord[]> {
  const bytes = Buffer.from(content);
  const path = join(dir, `${Math.random()}`);
  writeFileSync(path, bytes);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
  }
  const out: ImportRecord[] = [];
  for await (const records of readers[format].read({ bytes: chunks(), name, path })) out.push(...records);
  return out;
}

/** What a reader threw, as `code: message`, and the points it handed over before. */
async function refusal(format: FormatName, content: Buffer | string, name = 'file') {
  const seen: ImportRecord[] = [];
  const bytes = Buffer.from(content);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
  }
  try {
    for await (const records of readers[format].read({ bytes: chunks(), name })) seen.push(...records);
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return { code, message, points: seen.filter((r) => r.kind === 'point').length };
  }
  throw new Error('the reader took the file');
}

const RECORD = '{"latitudeE7":481000000,"longitudeE7":115000000,"timestamp":"2023-01-02T03:04:05Z"}';
/** The issue's file, scaled: {"locations":[<a real record>,[[[[... */
const bracketBomb = (brackets: number) => `{"locations":[${RECORD},${'['.repeat(brackets)}`;

describe('nesting depth', () => {
  it('refuses the bracket bomb of issue 30 (4 MB, 4 million brackets) at the 65th level, keeping the record before', async () => {
    const result = await refusal('google-records', bracketBomb(4_000_000), 'Records.json');
    expect(result).toEqual({
      code: 'import_too_deep',
      message: `import_too_deep: Records.json: byte ${14 + RECORD.length + 1 + 62} nests deeper than 64 levels; the file was not read further`,
      points: 1,
    });
  });

  it('refuses deep nesting in every JSON format, at the level past 64 whatever the path', async () => {
    const files: [FormatName, string][] = [
      ['google-semantic', `{"timelineObjects":[${'{"a":'.repeat(70)}`],
      ['google-timeline', `{"semanticSegments":[${'['.repeat(70)}`],
      ['google-timeline', `[${'['.repeat(70)}`],
      ['geojson', `{"type":"FeatureCollection","features":[${'['.repeat(70)}`],
      // Beside the records, too: a field no path selects is parsed all the same.
      ['google-records', `{"other":${'['.repeat(70)}`],
    ];
    for (const [format, content] of files) {
      expect((await refusal(format, content)).code, `${format} ${content.slice(0, 30)}`).toBe('import_too_deep');
    }
  });

  it('refuses XML elements nested past 64 levels (GPX, KML, TCX)', async () => {
    for (const [format, root] of [
      ['gpx', 'gpx'],
      ['kml', 'kml'],
      ['tcx', 'TrainingCenterDatabase'],
    ] as const) {
      const result = await refusal(format, `<?xml version="1.0"?><${root}>${'<a>'.repeat(100_000)}`);
      expect(result.code).toBe('import_too_deep');
      expect(result.message).toMatch(/^import_too_deep: file: character \d+ nests deeper than 64 levels/);
    }
  });

  it('refuses an OwnTracks line whose JSON nests past 64 levels', async () => {
    const line = `2023-01-02T03:04:05Z\t*\t${'['.repeat(100)}${']'.repeat(100)}\n`;
    expect(await refusal('owntracks', line)).toEqual({
      code: 'import_too_deep',
      message: 'import_too_deep: file: line 1 nests deeper than 64 levels; the file was not read further',
      points: 0,
    });
  });

  it('counts brackets inside strings as text, not nesting', () => {
    expect(nestsTooDeep(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`)).toBe(false);
    expect(nestsTooDeep('['.repeat(READ_LIMITS.depth))).toBe(false);
    expect(nestsTooDeep('['.repeat(READ_LIMITS.depth + 1))).toBe(true);
  });

  it('a zip entry past a limit is named in errors and passed over; the other entries are read', async () => {
    const gpx =
      '<gpx><trk><trkseg><trkpt lat="48.1" lon="11.5"><time>2023-01-02T03:04:05Z</time></trkpt></trkseg></trk></gpx>';
    const zip = makeZip([
      { name: 'Takeout/bomb.json', data: bracketBomb(200_000) },
      { name: 'Takeout/track.gpx', data: gpx },
    ]);
    const records = await read('zip', zip, 'takeout.zip');
    expect(records.filter((r) => r.kind !== 'point')).toEqual([
      {
        kind: 'error',
        where: 'takeout.zip: Takeout/bomb.json',
        message: `could not be read (import_too_deep: Takeout/bomb.json: byte ${14 + RECORD.length + 1 + 62} nests deeper than 64 levels; the file was not read further)`,
      },
    ]);
    expect(records.filter((r) => r.kind === 'point')).toHaveLength(2);
  });
});

describe('record and string size', () => {
  const big = READ_LIMITS.recordBytes + CHUNK;

  it('refuses a JSON record larger than the record limit, before it is built', async () => {
    // Strings each within the string limit, so it is the record that is too large.
    const numbers = `"${'x'.repeat(CHUNK)}",`.repeat(big / CHUNK);
    const result = await refusal('google-records', `{"locations":[${RECORD},{"a":[${numbers}`);
    expect(result.code).toBe('record_too_large');
    expect(result.message).toMatch(
      new RegExp(
        `^record_too_large: file: byte ${14 + RECORD.length + 1} starts a value larger than ${READ_LIMITS.recordBytes} bytes`,
      ),
    );
    expect(result.points).toBe(1);
  });

  it('refuses a JSON string longer than the string limit, closed or still open', async () => {
    const long = 'x'.repeat(READ_LIMITS.stringBytes + 10);
    const closed = await refusal('google-records', `{"locations":[{"timestamp":"${long}"}]}`);
    expect(closed.code).toBe('string_too_long');
    expect(closed.message).toBe(
      `string_too_long: file: byte 27 holds a string longer than ${READ_LIMITS.stringBytes} bytes; the file was not read further`,
    );
    const open = await refusal('geojson', `{"type":"FeatureCollection","name":"${long}${long}`);
    expect(open.code).toBe('string_too_long');
  });

  it('refuses XML text, or a tag, longer than the record limit', async () => {
    const text = await refusal('gpx', `<gpx><trk><name>${'x'.repeat(big)}</name></trk></gpx>`);
    expect(text.code).toBe('record_too_large');
    const attribute = await refusal('kml', `<kml><Placemark id="${'x'.repeat(big)}`);
    expect(attribute.code).toBe('record_too_large');
  });

  it('keeps no text in an element that holds elements: a long track of whitespace is no record', async () => {
    const point = '<trkpt lat="48.1" lon="11.5"><time>2023-01-02T03:04:05Z</time></trkpt>';
    const spaces = ' '.repeat(64 * 1024);
    const file = `<gpx><trk><trkseg>${`${spaces}${point}`.repeat(300)}</trkseg></trk></gpx>`;
    expect(file.length).toBeGreaterThan(READ_LIMITS.recordBytes);
    const records = await read('gpx', file);
    expect(records).toHaveLength(300);
  });

  it('refuses a CSV row, or a quote never closed, longer than the line limit', async () => {
    const header = 'time,lat,lon\n2023-01-02T03:04:05Z,48.1,11.5\n';
    const row = await refusal(
      'csv',
      `${header}2023-01-02T03:04:06Z,48.1,"${'x'.repeat(READ_LIMITS.lineBytes + 10)}"\n`,
    );
    expect(row).toEqual({
      code: 'record_too_large',
      message: `record_too_large: file: line 3 holds a row longer than ${READ_LIMITS.lineBytes} characters; the file was not read further`,
      points: 1,
    });
    const open = await refusal('csv', `${header}2023-01-02T03:04:06Z,48.1,"${'x,'.repeat(READ_LIMITS.lineBytes)}`);
    expect(open.code).toBe('record_too_large');
  });

  it('refuses an OwnTracks line longer than the line limit', async () => {
    const result = await refusal(
      'owntracks',
      `2023-01-02T03:04:05Z\t*\t{"_type":"location","x":"${'x'.repeat(2 * CHUNK * 4)}`,
    );
    expect(result).toEqual({
      code: 'record_too_large',
      message: `record_too_large: file: line 1 is longer than ${READ_LIMITS.lineBytes} characters; the file was not read further`,
      points: 0,
    });
  });
});
