// The XML formats' common part (GPX, KML, TCX): a streaming parser (saxes) that reports each
// element by its local name (without a namespace prefix: `gx:coord` is `coord`) with the text
// it held, so a reader keeps only the point it is building. No DTD is read, no entity is
// expanded beyond XML's own five. A file that ends early keeps what was read before.
// Within READ_LIMITS: elements open at once, the text of one element, and the characters between
// two of the parser's events (a tag, its attributes, a text or a comment it holds until it ends).
// Only an element without child elements keeps its text: whitespace between a track's points is
// nobody's content, and would otherwise add up to megabytes in the track's element.
import { SaxesParser } from 'saxes';
import { messageOf } from '../../lib/message-of.ts';
import { READ_LIMITS, ReadLimitError, text, tooDeep, type ImportRecord, type ReadInput } from './reader.ts';

export interface XmlVisitor {
  open?(name: string, attributes: Record<string, string>, out: ImportRecord[]): void;
  /** `content` is the element's own text (trimmed), `path` the local names of its ancestors. */
  close?(name: string, content: string, out: ImportRecord[], path: readonly string[]): void;
}

const local = (name: string) => name.slice(name.indexOf(':') + 1);

export async function* xmlRecords(input: ReadInput, visitor: XmlVisitor): AsyncIterable<ImportRecord[]> {
  const parser = new SaxesParser({ position: true });
  let out: ImportRecord[] = [];
  const path: string[] = [];
  /** Each open element's text; null once it holds an element (its text is then no content). */
  const texts: (string | null)[] = [];
  let failure: string | undefined;
  let offset = 0;
  let sinceEvent = 0;
  const where = () => `${input.name}: character ${parser.position}`;
  parser.on('opentag', (tag) => {
    sinceEvent = 0;
    const name = local(tag.name);
    path.push(name);
    if (path.length > READ_LIMITS.depth) throw tooDeep(where());
    if (texts.length > 0) texts[texts.length - 1] = null;
    texts.push('');
    visitor.open?.(name, tag.attributes as Record<string, string>, out);
  });
  const addText = (value: string) => {
    sinceEvent = 0;
    const last = texts.length - 1;
    const held = texts[last];
    if (held === null || held === undefined) return;
    if (held.length + value.length > READ_LIMITS.recordBytes) {
      throw new ReadLimitError(
        'record_too_large',
        where(),
        `holds an element <${path[last]}> with more than ${READ_LIMITS.recordBytes} characters of text; the file was not read further`,
      );
    }
    texts[last] = held + value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    sinceEvent = 0;
    const name = path.pop() ?? '';
    const content = (texts.pop() ?? '').trim();
    visitor.close?.(name, content, out, path);
  });
  parser.on('error', (error) => {
    failure ??= error.message;
  });
  for await (const chunk of text(input.bytes)) {
    try {
      parser.write(chunk);
    } catch (error) {
      if (error instanceof ReadLimitError) throw error;
      failure ??= messageOf(error);
    }
    offset += chunk.length;
    sinceEvent += chunk.length;
    // The parser holds what it has not yet reported (a text, a tag with its attributes, a comment).
    if (sinceEvent > READ_LIMITS.recordBytes) {
      throw new ReadLimitError(
        'record_too_large',
        where(),
        `ends a run of more than ${READ_LIMITS.recordBytes} characters in one text, tag or comment; the file was not read further`,
      );
    }
    if (out.length > 0) {
      yield out;
      out = [];
    }
    if (failure) break;
  }
  if (!failure) {
    try {
      parser.close();
    } catch (error) {
      failure ??= messageOf(error);
    }
  }
  if (failure) {
    const early = path.length > 0 && /unclosed|end/i.test(failure);
    out.push({
      kind: 'error',
      where: `${input.name}: character ${offset}`,
      message: early
        ? 'the file ends early (truncated); the points before were read'
        : `the XML is malformed (${failure}); the points before were read`,
    });
  }
  if (out.length > 0) yield out;
}
