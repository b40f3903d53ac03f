// The JSON formats' common part: a streaming parser (@streamparser/json) that hands over each
// value at the given paths (e.g. every element of `locations`) and forgets it, so memory holds
// one record, not the file. A file that ends early or breaks off keeps what was read before.
// The tokens are watched on their way to the parser, within READ_LIMITS: the nesting depth
// (the parser keeps a frame per open container, so 22 million brackets would fill any heap),
// the bytes of the record being built (a value at the paths' depth, or any value beside them:
// the parser builds it before it can drop it), and of one string or number.
import { JSONParser, TokenType } from '@streamparser/json';
import { messageOf } from '../../lib/message-of.ts';
import { READ_LIMITS, ReadLimitError, tooDeep, withoutBom, type ImportRecord, type ReadInput } from './reader.ts';

/**
 * Turns one value found at a path into records (pushed onto `out`). `index` is its place in its
 * array, `top` the top-level field the array is in (undefined for a top-level array).
 */
export type OnValue = (value: unknown, out: ImportRecord[], index: number, top: string | undefined) => void;

/** Counts open containers and the bytes of the record open, and throws past READ_LIMITS. */
function limitWatch(name: string, paths: string[]) {
  // Records are the values `paths` select, as deep as their shallowest path: `$.locations.*` are
  // values inside two containers (the top-level object and `locations`).
  const recordDepth = Math.min(...paths.map((path) => path.split('.').length - 1));
  let depth = 0;
  let recordStart = 0;
  let lastToken = 0;
  const where = (offset: number) => `${name}: byte ${offset}`;
  const recordTooLarge = (offset: number) =>
    new ReadLimitError(
      'record_too_large',
      where(recordStart),
      `starts a value larger than ${READ_LIMITS.recordBytes} bytes (still open at byte ${offset}); the file was not read further`,
    );
  return {
    token(token: TokenType, value: unknown, offset: number): void {
      lastToken = offset;
      if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
        if (depth === recordDepth) recordStart = offset;
        if (++depth > READ_LIMITS.depth) throw tooDeep(where(offset));
      } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
      else if (token === TokenType.STRING && (value as string).length > READ_LIMITS.stringBytes) {
        throw new ReadLimitError(
          'string_too_long',
          where(offset),
          `holds a string longer than ${READ_LIMITS.stringBytes} bytes; the file was not read further`,
        );
      }
      if (depth > recordDepth && offset - recordStart > READ_LIMITS.recordBytes) throw recordTooLarge(offset);
    },
    /** After a chunk: a string, number or record still open that is already past its bound. */
    written(offset: number): void {
      if (depth > recordDepth && offset - recordStart > READ_LIMITS.recordBytes) throw recordTooLarge(offset);
      if (offset - lastToken > READ_LIMITS.stringBytes) {
        throw new ReadLimitError(
          'string_too_long',
          where(lastToken),
          `is followed by a string, number or space longer than ${READ_LIMITS.stringBytes} bytes; the file was not read further`,
        );
      }
    },
  };
}

export async function* jsonRecords(input: ReadInput, paths: string[], onValue: OnValue): AsyncIterable<ImportRecord[]> {
  const parser = new JSONParser({ paths, keepStack: false });
  const watch = limitWatch(input.name, paths);
  let out: ImportRecord[] = [];
  let failure: Error | undefined;
  let limit: ReadLimitError | undefined;
  let ended = false;
  let offset = 0;
  // Before the parser sees a token: past a limit, it never builds the value.
  parser.onToken = (info) => watch.token(info.token, info.value, info.offset);
  parser.onValue = ({ value, key, stack }) => {
    const top = stack[1]?.key;
    onValue(value, out, typeof key === 'number' ? key : 0, typeof top === 'string' ? top : undefined);
  };
  parser.onError = (error) => {
    if (error instanceof ReadLimitError) limit ??= error;
    else if (!ended) failure ??= error;
  };
  parser.onEnd = () => {
    ended = true;
  };
  for await (const chunk of withoutBom(input.bytes)) {
    if (ended) {
      // Whitespace after the top-level value is fine; anything else is noted, and ignored.
      if (!/^\s*$/.test(Buffer.from(chunk).toString('utf8'))) {
        out.push({
          kind: 'error',
          where: `${input.name}: byte ${offset}`,
          message: 'data after the end of the JSON document was ignored',
        });
      }
      break;
    }
    try {
      parser.write(chunk);
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error(messageOf(error));
    }
    offset += chunk.length;
    if (!limit && !failure) {
      try {
        watch.written(offset);
      } catch (error) {
        limit = error as ReadLimitError;
      }
    }
    if (out.length > 0) {
      yield out;
      out = [];
    }
    if (limit) throw limit;
    if (failure) break;
  }
  if (!ended && !failure) {
    try {
      parser.end();
    } catch (error) {
      failure ??= error instanceof Error ? error : new Error(messageOf(error));
    }
  }
  if (failure) {
    const early = /ended|end of/i.test(failure.message) || !ended;
    out.push({
      kind: 'error',
      where: `${input.name}: byte ${offset}`,
      message:
        early && /ended|end of/i.test(failure.message)
          ? 'the file ends early (truncated); the records before were read'
          : `the JSON is malformed (${failure.message}); the records before were read`,
    });
  }
  if (out.length > 0) yield out;
}
