// The JSON formats' common part: a streaming parser (@streamparser/json) that hands over each
// value at the given paths (e.g. every element of `locations`) and forgets it, so memory holds
// one record, not the file. A file that ends early or breaks off keeps what was read before.
import { JSONParser } from '@streamparser/json';
import { messageOf, withoutBom, type ImportRecord, type ReadInput } from './reader.ts';

/**
 * Turns one value found at a path into records (pushed onto `out`). `index` is its place in its
 * array, `top` the top-level field the array is in (undefined for a top-level array).
 */
export type OnValue = (value: unknown, out: ImportRecord[], index: number, top: string | undefined) => void;

export async function* jsonRecords(input: ReadInput, paths: string[], onValue: OnValue): AsyncIterable<ImportRecord[]> {
  const parser = new JSONParser({ paths, keepStack: false });
  let out: ImportRecord[] = [];
  let failure: Error | undefined;
  let ended = false;
  let offset = 0;
  parser.onValue = ({ value, key, stack }) => {
    const top = stack[1]?.key;
    onValue(value, out, typeof key === 'number' ? key : 0, typeof top === 'string' ? top : undefined);
  };
  parser.onError = (error) => {
    if (!ended) failure ??= error;
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
    if (out.length > 0) {
      yield out;
      out = [];
    }
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

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
