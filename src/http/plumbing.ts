// Cross-cutting HTTP behaviour: request ids, security headers, 404 and 405 as problem+json.
import helmet from 'helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { problem, sendProblem, type Problem } from './errors.ts';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a client's `X-Request-Id` when it is sane (API.md), otherwise makes one. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The headers a helmet middleware sets. Every one of helmet's is the same for every request,
 * so they are worked out once: running the middleware chain per request cost a sixth of the
 * CPU of a cheap API call (measured, BENCHMARKS.md).
 */
function headersOf(middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error('helmet refused its options');
  });
  return headers;
}

/** The answer for a path nothing lives at; also for a route that hides from those it does not serve. */
export function nothingHere(request: FastifyRequest): Problem {
  const path = request.url.split('?')[0] ?? '/';
  return problem(404, 'not_found', `Nothing lives at ${request.method} ${path}.`);
}

async function plumbing(app: FastifyInstance) {
  const securityHeaders = headersOf(
    helmet({
      // Pages are server-rendered, without scripts of their own; /docs sets its own policy.
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          // Deployments on plain http (a LAN, localhost) must keep working; TLS is the proxy's job.
          upgradeInsecureRequests: null,
        },
      },
      // Media and API responses are fetched cross-origin by apps with a token.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      frameguard: { action: 'deny' },
      strictTransportSecurity: false, // set per-deployment by the TLS-terminating proxy
    }),
  );
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    void reply.headers(securityHeaders).header('x-request-id', request.id);
    done();
  });

  // fastify answers an unknown method on a known path with 404; HTTP says 405 with `Allow`.
  // A second router that knows every path pattern and its methods tells which case it is.
  const patterns = FindMyWay();
  const methodsByPattern = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    // The CORS plugin's catch-all OPTIONS route would make every unknown path look known.
    if (route.url === '*') return;
    let methods = methodsByPattern.get(route.url);
    if (!methods) {
      methods = new Set();
      methodsByPattern.set(route.url, methods);
      patterns.on('GET', route.url, () => {}, { pattern: route.url });
    }
    for (const method of [route.method].flat()) methods.add(method);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const match = patterns.find('GET', path);
    const methods = match ? methodsByPattern.get((match.store as { pattern: string }).pattern) : undefined;
    if (methods) {
      const allow = [...methods].join(', ');
      return sendProblem(
        reply,
        problem(405, 'method_not_allowed', `${request.method} is not allowed here; use ${allow}.`),
        {
          allow,
        },
      );
    }
    return sendProblem(reply, nothingHere(request));
  });
}

export default fp(plumbing, { name: 'plumbing' });
