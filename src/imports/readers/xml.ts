// The XML formats' common part (GPX, KML, TCX): a streaming parser (saxes) that reports each
// element by its local name (without a namespace prefix: `gx:coord` is `coord`) with the text
// it held, so a reader keeps only the point it is building. No DTD is read, no entity is
// expanded beyond XML's own five. A file that ends early keeps what was read before.
import { SaxesParser } from 'saxes';
import { messageOf, text, type ImportRecord, type ReadInput } from './reader.ts';

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
  const texts: string[] = [];
  let failure: string | undefined;
  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    path.push(name);
    texts.push('');
    visitor.open?.(name, tag.attributes as Record<string, string>, out);
  });
  const addText = (value: string) => {
    if (texts.length > 0) texts[texts.length - 1] += value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const name = path.pop() ?? '';
    const content = (texts.pop() ?? '').trim();
    visitor.close?.(name, content, out, path);
  });
  parser.on('error', (error) => {
    failure ??= error.message;
  });
  let offset = 0;
  for await (const chunk of text(input.bytes)) {
    try {
      parser.write(chunk);
    } catch (error) {
      failure ??= messageOf(error);
    }
    offset += chunk.length;
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
