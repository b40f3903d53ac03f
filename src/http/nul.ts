// Text a client sends may not hold U+0000. PostgreSQL's text, varchar and jsonb cannot store
// it (the query fails), SQLite would store what PostgreSQL refuses, and no person's post, name
// or search needs it. One rule for every route, checked where the request has been parsed:
// path parameters, query, and a parsed body (JSON or form).
// Multipart fields are read in the handler, so src/http/multipart.ts asks the same question.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest } from '../core/errors.ts';

/** Whether a parsed value holds U+0000 in a string or a key. */
export function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  // Deeper than the body limits allow anyway: the parser refused it already or it is harmless.
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Buffer.isBuffer(value)) return false;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\0') || holdsNul(item, depth + 1)) return true;
  }
  return false;
}

export const NUL_REFUSED = 'Text in a request may not contain the NUL character (U+0000).';

async function refuseNul(app: FastifyInstance) {
  // Path and query before any route's own hooks (a tracker's looks its id up first).
  // Callback hooks, not async ones: every request passes both, and most hold no NUL.
  app.addHook('onRequest', (request, _reply, done) => {
    done(holdsNul(request.params) || holdsNul(request.query) ? badRequest(NUL_REFUSED) : undefined);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    // A raw text body (a tracker's) is read by its protocol, which stores numbers and answers
    // each app as it needs (docs/trackers.md): only parsed bodies are judged here.
    done(typeof request.body !== 'string' && holdsNul(request.body) ? badRequest(NUL_REFUSED) : undefined);
  });
}

export default fp(refuseNul, { name: 'refuse-nul' });
