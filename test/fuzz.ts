// Property tests by class of input: each class generates inputs whose answer is known, so a
// run asserts the exact status and body for every input (and, with it, that none is a 5xx).
import fc from 'fast-check';
import { expect } from 'vitest';

export interface FieldError {
  path: string;
  message: string;
}

export interface Answer {
  status: number;
  /** The exact JSON body; absent: only the status is known (a success whose body is checked by `check`). */
  body?: unknown;
  /** Further checks of a success. */
  check?: (body: unknown) => void;
}

/** One class of input and the one answer every input of it gets. */
export interface InputClass<T> {
  name: string;
  inputs: fc.Arbitrary<T>;
  answer: (input: T) => Answer;
}

/** Draws a class, then an input of it. */
export function byClass<T>(classes: InputClass<T>[]): fc.Arbitrary<{ name: string; input: T; answer: Answer }> {
  return fc.oneof(...classes.map((c) => c.inputs.map((input) => ({ name: c.name, input, answer: c.answer(input) }))));
}

/** 400 `validation_failed`: the request fails its schema (src/http/errors.ts). */
export function invalid(...errors: [path: string, message: string][]): Answer {
  const list = errors.map(([path, message]) => ({ path, message }));
  return {
    status: 400,
    body: {
      type: 'urn:waypost:problem:validation_failed',
      title: 'Bad Request',
      status: 400,
      detail: `The request is invalid: ${list.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
      code: 'validation_failed',
      errors: list,
    },
  };
}

/** 400 `invalid_request` with a detail and field errors, as a feature's own checks answer. */
export function refused(detail: string, errors?: FieldError[]): Answer {
  return {
    status: 400,
    body: {
      type: 'urn:waypost:problem:invalid_request',
      title: 'Bad Request',
      status: 400,
      detail,
      code: 'invalid_request',
      ...(errors ? { errors } : {}),
    },
  };
}

/** Asserts a response against the answer its input's class promises. */
export function expectAnswer(
  name: string,
  input: unknown,
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  answer: Answer,
): void {
  const context = `${name}: ${JSON.stringify(input)?.slice(0, 300)} -> ${response.body.slice(0, 300)}`;
  expect(response.statusCode, context).toBe(answer.status);
  if (answer.status >= 400) {
    expect(response.headers['content-type'], context).toBe('application/problem+json; charset=utf-8');
  }
  if (answer.body !== undefined) expect(JSON.parse(response.body), context).toEqual(answer.body);
  answer.check?.(JSON.parse(response.body));
}

/**
 * Keys of prototype poisoning, which the JSON parser refuses wherever they are (`__proto__`, and
 * `constructor` holding a `prototype`): 400 invalid_json, a class of its own
 * (src/http/framework-errors.test.ts). fast-check's JSON values sometimes hold them; values with
 * a `constructor` key at all are left out too.
 */
const POISONING_KEY = /"(__proto__|constructor)":/;

/** JSON values up to `maxDepth`, without the keys the parser refuses. */
export function plainJsonValue(maxDepth: number): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth }).filter((value) => !POISONING_KEY.test(JSON.stringify(value)));
}

/** JSON values that are not objects (arrays, numbers, strings, booleans, null). */
export const notAnObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(plainJsonValue(2), { maxLength: 4 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 20 }),
  fc.boolean(),
  fc.constant(null),
);

/** JSON values that are not strings. */
export const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.integer(), { maxKeys: 2 }),
);

/** Field names a strict body does not know: lower-case words, minus the known ones. */
export function unknownField(known: string[]): fc.Arbitrary<string> {
  return fc.stringMatching(/^[a-z][a-z_]{0,14}$/).filter((name) => !known.includes(name));
}

/** Strings of white space only, at least one character (trimmed to nothing). */
export const blank: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\u3000'), { minLength: 1, maxLength: 12 })
  .map((chars) => chars.join(''));

/** The paging parameters every collection takes (count, order, cursor): each wrong class and its answer. */
export const PAGING_CLASSES: InputClass<[string, string][]>[] = [
  {
    name: 'a count that is not a number',
    inputs: fc.stringMatching(/^[a-z]{1,8}$/).map((v) => [['count', v]]),
    answer: () => invalid(['querystring/count', 'must be integer']),
  },
  {
    name: 'a count over 1000',
    inputs: fc.integer({ min: 1001, max: 1e9 }).map((v) => [['count', String(v)]]),
    answer: () => invalid(['querystring/count', 'must be <= 1000']),
  },
  {
    name: 'a count under 1',
    inputs: fc.integer({ min: -1e9, max: 0 }).map((v) => [['count', String(v)]]),
    answer: () => invalid(['querystring/count', 'must be >= 1']),
  },
  {
    name: 'an order that is neither asc nor desc',
    inputs: fc
      .stringMatching(/^[a-z]{0,8}$/)
      .filter((v) => v !== 'asc' && v !== 'desc')
      .map((v) => [['order', v]]),
    answer: () =>
      invalid(
        ['querystring/order', 'must be equal to constant'],
        ['querystring/order', 'must match a schema in anyOf'],
      ),
  },
  {
    name: 'a cursor this server did not make',
    inputs: fc.stringMatching(/^[!*().~]{1,10}$/).map((v) => [['cursor', v]]),
    answer: () => ({
      status: 400,
      body: {
        type: 'urn:waypost:problem:invalid_cursor',
        title: 'Bad Request',
        status: 400,
        detail: 'The cursor is not one this server made; take it from the Link header.',
        code: 'invalid_cursor',
        errors: [{ path: 'querystring/cursor', message: 'is not a cursor this server made' }],
      },
    }),
  },
];
