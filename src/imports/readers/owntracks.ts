// OwnTracks Recorder's storage (`rec/<user>/<device>/YYYY-MM.rec`): one message a line,
// `<ISO time>\t<topic or *>\t<JSON payload>`. Location messages (`"_type": "location"`) give
// `lat`, `lon`, `tst` (epoch seconds; the line's own time when absent), `acc` (m), `alt` (m),
// `vel` (km/h, stored as m/s) and `cog` (degrees). Other messages (transitions, waypoints,
// lwt, cards, status) are not points and are passed over.
import { messageOf } from '../../lib/message-of.ts';
import { nestsTooDeep } from '../../lib/json-depth.ts';
import {
  parseTime,
  point,
  READ_LIMITS,
  ReadLimitError,
  text,
  tooDeep,
  type ImportRecord,
  type Reader,
} from './reader.ts';

function line(raw: string, where: string, out: ImportRecord[]): void {
  const fields = raw.split('\t');
  if (fields.length < 3) {
    out.push({ kind: 'skip', where, message: 'is not "time, topic, JSON" separated by tabs' });
    return;
  }
  let message: Record<string, unknown>;
  const json = fields.slice(2).join('\t');
  if (nestsTooDeep(json)) throw tooDeep(where);
  try {
    message = JSON.parse(json) as Record<string, unknown>;
  } catch (error) {
    out.push({ kind: 'skip', where, message: `holds malformed JSON (${messageOf(error)})` });
    return;
  }
  if (typeof message !== 'object' || message === null || message._type !== 'location') return;
  const time = message.tst !== undefined ? parseTime(message.tst) : parseTime(fields[0]?.trim());
  const vel = typeof message.vel === 'number' ? message.vel / 3.6 : null;
  out.push(
    point(where, time, message.lat, message.lon, {
      accuracy: message.acc,
      alt: message.alt,
      speed: vel,
      heading: message.cog,
    }),
  );
}

export const owntracks: Reader = {
  async *read(input) {
    let rest = '';
    let number = 0;
    for await (const chunk of text(input.bytes)) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      if (rest.length > READ_LIMITS.lineBytes) {
        throw new ReadLimitError(
          'record_too_large',
          `${input.name}: line ${number + lines.length + 1}`,
          `is longer than ${READ_LIMITS.lineBytes} characters; the file was not read further`,
        );
      }
      const out: ImportRecord[] = [];
      for (const raw of lines) {
        number += 1;
        const clean = raw.replace(/\r$/, '');
        if (clean.trim()) line(clean, `${input.name}: line ${number}`, out);
      }
      if (out.length > 0) yield out;
    }
    const last = rest.replace(/\r$/, '');
    if (last.trim()) {
      const out: ImportRecord[] = [];
      line(last, `${input.name}: line ${number + 1}`, out);
      // A last line cut off in its JSON is a file that ends early.
      if (out.length === 1 && out[0]?.kind === 'skip' && /malformed JSON/.test(out[0].message ?? '')) {
        yield [
          { kind: 'skip' },
          {
            kind: 'error',
            where: `${input.name}: line ${number + 1}`,
            message: 'the file ends early (truncated); the lines before were read',
          },
        ];
        return;
      }
      yield out;
    }
  },
};
