// CSV with a header row (RFC 4180, as spreadsheets and loggers like GPSLogger write it). The
// columns are found by their names, case-insensitively: time (`time`, `timestamp`, `datetime`,
// `date_time`, `date`, `utc`, `recorded_at`; or `timestamp_ms` in epoch milliseconds), latitude
// (`lat`, `latitude`), longitude (`lon`, `lng`, `long`, `longitude`), and optionally altitude
// (`alt`, `altitude`, `elevation`, `ele`), accuracy (`accuracy`, `acc`, `horizontal_accuracy`),
// speed in m/s (`speed`) and heading (`heading`, `bearing`, `course`). The delimiter is the
// header's: comma, semicolon or tab; with semicolons a decimal comma ("48,1") is read too.
// Times without an offset are taken as UTC.
import { parse } from 'csv-parse';
import { messageOf } from '../../lib/message-of.ts';
import {
  peek,
  point,
  parseTime,
  READ_LIMITS,
  ReadLimitError,
  withoutBom,
  type ImportRecord,
  type Reader,
} from './reader.ts';

const NAMES = {
  time: ['time', 'timestamp', 'datetime', 'date_time', 'date time', 'date', 'utc', 'time_utc', 'recorded_at'],
  timeMs: ['timestamp_ms', 'time_ms', 'timestampms'],
  lat: ['lat', 'latitude'],
  lon: ['lon', 'lng', 'long', 'longitude'],
  alt: ['alt', 'altitude', 'elevation', 'ele'],
  accuracy: ['accuracy', 'acc', 'horizontal_accuracy'],
  speed: ['speed'],
  heading: ['heading', 'bearing', 'course'],
} as const;
type Field = keyof typeof NAMES;

export interface CsvHeader {
  delimiter: string;
  columns: Partial<Record<Field, number>>;
}

function splitHeader(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((name) =>
    name
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim()
      .toLowerCase(),
  );
}

/** The header of a CSV file this reader takes (time, latitude and longitude columns), or null. */
export function csvHeader(firstLine: string): CsvHeader | null {
  const line = firstLine.replace(/^\uFEFF/, '').replace(/\r$/, '');
  const delimiter = [';', '\t', ','].reduce(
    (best, d) => (line.split(d).length > line.split(best).length ? d : best),
    ',',
  );
  const names = splitHeader(line, delimiter);
  const columns: Partial<Record<Field, number>> = {};
  for (const field of Object.keys(NAMES) as Field[]) {
    for (const candidate of NAMES[field]) {
      const index = names.indexOf(candidate);
      if (index >= 0) {
        columns[field] = index;
        break;
      }
    }
  }
  const hasTime = columns.time !== undefined || columns.timeMs !== undefined;
  return hasTime && columns.lat !== undefined && columns.lon !== undefined ? { delimiter, columns } : null;
}

export const csv: Reader = {
  async *read(input) {
    const { head, all } = await peek(withoutBom(input.bytes), 64 * 1024);
    const firstLine = head.toString('utf8').split('\n')[0] ?? '';
    const header = csvHeader(firstLine);
    if (!header) {
      yield [
        {
          kind: 'error',
          where: `${input.name}: line 1`,
          message: 'no time, latitude and longitude columns in the header',
        },
      ];
      return;
    }
    const { delimiter, columns } = header;
    const number = (value: string | undefined) =>
      value === undefined || value.trim() === '' ? null : delimiter === ';' ? value.replace(',', '.') : value;
    const parser = parse({
      delimiter,
      from_line: 2,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
      // A row (or a quote never closed) past this is refused, not buffered to the end of the file.
      max_record_size: READ_LIMITS.lineBytes,
    });
    // Rows are taken as they come ('data'), so those before a parse error are kept.
    const rows: { row: string[]; line: number }[] = [];
    let failure: unknown;
    parser.on('data', (row: string[]) => rows.push({ row, line: parser.info.lines }));
    parser.on('error', (error) => (failure ??= error));
    const ended = new Promise<void>((resolve) => parser.on('close', resolve));
    const take = (): ImportRecord[] =>
      rows.splice(0).map(({ row, line }) => {
        const cell = (field: Field) => (columns[field] === undefined ? undefined : row[columns[field]]);
        const timeMs = columns.time !== undefined ? parseTime(cell('time')) : Number(cell('timeMs'));
        return point(`${input.name}: line ${line}`, timeMs, number(cell('lat')), number(cell('lon')), {
          alt: number(cell('alt')),
          accuracy: number(cell('accuracy')),
          speed: number(cell('speed')),
          heading: number(cell('heading')),
        });
      });
    for await (const chunk of all) {
      parser.write(chunk);
      await new Promise((resolve) => setImmediate(resolve));
      const out = take();
      if (out.length > 0) yield out;
      if (failure) break;
    }
    if (!failure) parser.end();
    await ended;
    const out = take();
    if ((failure as { code?: unknown } | undefined)?.code === 'CSV_MAX_RECORD_SIZE') {
      if (out.length > 0) yield out;
      throw new ReadLimitError(
        'record_too_large',
        `${input.name}: line ${parser.info.lines}`,
        `holds a row longer than ${READ_LIMITS.lineBytes} characters; the file was not read further`,
      );
    }
    if (failure) {
      const early = /quote not closed|unexpected end/i.test(messageOf(failure));
      out.push({
        kind: 'error',
        where: `${input.name}: line ${parser.info.lines}`,
        message: early
          ? 'the file ends early (truncated); the rows before were read'
          : `the CSV is malformed (${messageOf(failure)}); the rows before were read`,
      });
    }
    if (out.length > 0) yield out;
  },
};
