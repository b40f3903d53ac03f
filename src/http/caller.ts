import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../core/caller.ts';

/** The id of the person a request with a token acts for (routes whose config requires a token). */
export function callerId(request: FastifyRequest): string {
  if (!request.auth) throw unauthorized();
  return request.auth.userId;
}
