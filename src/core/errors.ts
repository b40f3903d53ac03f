// Errors a client can cause, without any framework: `AppError` carries a stable code from the
// catalogue (src/core/problems.ts), which also fixes its status, and the problem+json body it
// becomes. Thrown anywhere; src/http/errors.ts turns it into an HTTP answer in one place
// (docs/conventions.md 5).
import { STATUS_CODES } from 'node:http';
import { statusOf, type ProblemCode } from './problems.ts';

/** One field-level problem in a request (docs/api.md: `errors: [{path, message}]`). */
export interface FieldError {
  path: string;
  message: string;
}

/** The RFC 9457 problem document every error response carries. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

/**
 * An error a client can cause, with a stable code from the catalogue (src/core/problems.ts),
 * which also gives its status. Thrown anywhere; turned into HTTP in exactly one place,
 * `handleError` in src/http/errors.ts (docs/conventions.md 5).
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly extra: { errors?: FieldError[]; headers?: Record<string, string> };
  constructor(
    code: ProblemCode,
    message: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = statusOf(code);
    this.code = code;
    this.extra = extra;
  }
}

export const notFound = (detail = 'No such object.') => new AppError('not_found', detail);
export const badRequest = (detail: string, errors?: FieldError[]) =>
  new AppError('invalid_request', detail, errors ? { errors } : {});

/** Where a field sits in a request: `body/display_name`, `querystring/cursor`, `body/groups/2`. */
export type FieldPath = `${'body' | 'querystring' | 'params' | 'headers'}${'' | `/${string}`}`;

export const fieldError = (path: FieldPath, message: string): FieldError => ({ path, message });

/** A 400 that lists each field at fault (`errors`): "<lead>: <path> <message>; ...". */
export function invalid(lead: string, errors: FieldError[]): AppError {
  return badRequest(`${lead}: ${describeErrors(errors)}.`, errors);
}

export const describeErrors = (errors: FieldError[]) => errors.map((e) => `${e.path} ${e.message}`).join('; ');

/** `type` of a problem: a URN naming the stable code (RFC 9457 3.1.1 allows any URI). */
export function problemType(code: string): string {
  return `urn:waypost:problem:${code}`;
}

/** The body for `code`; `status` differs from the catalogue's only for fastify's own 4xx errors. */
export function problem(code: ProblemCode, detail: string, errors?: FieldError[], status = statusOf(code)): Problem {
  return {
    type: problemType(code),
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
  };
}
