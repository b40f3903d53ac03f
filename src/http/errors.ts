// Turning errors into problem+json answers (docs/api.md "General rules"): AppError (src/core/errors.ts)
// with its own status, fastify's own client errors mapped to stable codes, and anything else a 500.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ProblemCode } from '../core/problems.ts';
import { AppError, describeErrors, problem, type FieldError, type Problem } from '../core/errors.ts';

export function sendProblem(reply: FastifyReply, body: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(body.status).headers(headers).type('application/problem+json; charset=utf-8').send(body);
}

/** Fastify's own client errors, by code, with the status and stable code we answer with. */
const FASTIFY_ERRORS: Record<string, ProblemCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_TYPE: 'invalid_request',
  FST_ERR_BAD_URL: 'invalid_request',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
  FST_ERR_ASYNC_CONSTRAINT: 'invalid_request',
};

/**
 * Turns a validation error into field errors with JSON-pointer-like paths. Two validators speak
 * here: Ajv (querystrings, params) and TypeBox's compiler (strict JSON bodies); they name a
 * missing or unknown field differently (`missingProperty` vs `requiredProperties: [..]`,
 * `additionalProperty` vs `additionalProperties: [..]` plus a "schema is false" entry).
 */
function fieldErrors(error: FastifyError): FieldError[] {
  const where = error.validationContext ?? 'body';
  const errors: FieldError[] = [];
  for (const issue of error.validation ?? []) {
    const base = `${where}${issue.instancePath || ''}`;
    const params = issue.params;
    const names = (value: unknown): string[] => [value ?? []].flat().filter((name) => typeof name === 'string');
    const missing = names(params.missingProperty ?? params.requiredProperties);
    const unknown = names(params.additionalProperty ?? params.additionalProperties);
    if (missing.length > 0) {
      for (const name of missing) errors.push({ path: `${base}/${name}`, message: 'is required' });
    } else if (unknown.length > 0) {
      for (const name of unknown) errors.push({ path: `${base}/${name}`, message: 'is not a known field' });
    } else if (issue.keyword === 'boolean' && issue.schemaPath.endsWith('/additionalProperties')) {
      errors.push({ path: base, message: 'is not a known field' });
    } else {
      errors.push({ path: base, message: issue.message ?? 'is invalid' });
    }
  }
  // TypeBox reports an unknown field twice (as the object's and as the field's error).
  return errors.filter((e, i) => errors.findIndex((f) => f.path === e.path && f.message === e.message) === i);
}

/** The error handler: every error becomes problem+json; only client errors say what went wrong. */
export function handleError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    return sendProblem(reply, problem(error.code, error.message, error.extra.errors), error.extra.headers);
  }
  if (error.validation) {
    const errors = fieldErrors(error);
    return sendProblem(
      reply,
      problem('validation_failed', `The request is invalid: ${describeErrors(errors)}.`, errors),
    );
  }
  const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return sendProblem(reply, problem(known, error.message));
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return sendProblem(reply, problem('invalid_request', error.message, undefined, status));
  }
  request.log.error({ err: error }, 'request failed');
  return sendProblem(
    reply,
    problem('internal_error', 'Something went wrong on our side. The request id identifies it in our logs.'),
  );
}
