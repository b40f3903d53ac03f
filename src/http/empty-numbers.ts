import type { FastifyRequest } from 'fastify';
import { badRequest } from '../core/errors.ts';

/**
 * A preValidation hook for numeric query parameters: Ajv coerces an empty string to 0
 * (`?since_time=` would mean 1970), but an empty value is not a number, so it is a 400 like any
 * other (docs/api.md "Collections").
 */
export function rejectEmptyNumbers(names: readonly string[]) {
  return async (request: FastifyRequest) => {
    const query = request.query as Record<string, unknown>;
    const empty = names.filter((name) => query[name] === '');
    if (empty.length > 0) {
      throw badRequest(
        `${empty.join(', ')} must be a number, not empty.`,
        empty.map((name) => ({ path: `querystring/${name}`, message: 'must be a number' })),
      );
    }
  };
}
