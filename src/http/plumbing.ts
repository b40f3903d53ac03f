// Cross-cutting HTTP behaviour: request ids, security headers, and problem+json for every
// answer fastify or Node would otherwise give in their own format: 404 and 405, router failures
// (a path that does not decode, a segment over fastify's `maxParamLength`), requests that are
// not HTTP at all (Node's parser), and requests arriving while the server shuts down.
import helmet from 'helmet';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { handleError, sendProblem } from './errors.ts';
import { problem, type Problem } from '../core/errors.ts';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a client's `X-Request-Id` when it is sane (docs/api.md), otherwise makes one. */
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
  return problem('not_found', `Nothing lives at ${request.method} ${path}.`);
}

/** helmet's headers, for every response (fastify's, oidc-provider's, and the ones below). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = headersOf(
  helmet({
    // Pages are server-rendered; their scripts and styles are files from /assets (never inline,
    // src/web/assets.ts); blob: shows a chosen file before it is uploaded. /docs sets its own policy.
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'blob:'],
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
    strictTransportSecurity: false, // by the base URL, below
  }),
);

/**
 * RFC 6797: browsers that saw this over https use only https for the host for a year. Not
 * `includeSubDomains`: the base URL may be a person's bare domain, whose other names Waypost does
 * not speak for; not `preload` either, which is the domain owner's choice.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** The security headers of a deployment: with Strict-Transport-Security when its base URL is https. */
export function securityHeaders(baseUrl: string): Readonly<Record<string, string>> {
  if (new URL(baseUrl).protocol !== 'https:') return SECURITY_HEADERS;
  return { ...SECURITY_HEADERS, 'strict-transport-security': STRICT_TRANSPORT_SECURITY };
}

/**
 * fastify's `frameworkErrors`: the router could not take the path (FST_ERR_BAD_URL,
 * FST_ERR_MAX_PARAM_LENGTH). fastify answers these before any hook runs, so the headers the
 * `onRequest` hook below sets for everyone else are set here.
 */
export function frameworkErrors(headers: Readonly<Record<string, string>>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void reply.headers(headers).header('x-request-id', request.id);
    void handleError(error, request, reply);
  };
}

/** What a request Node's HTTP parser refused gets (`code` is Node's parser error). */
function clientProblem(code: string | undefined): Problem {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return problem('request_timeout', 'The request did not arrive in time.');
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return problem('headers_too_large', 'The request line and headers are too large.');
  }
  return problem('malformed_request', 'The request is not valid HTTP/1.1.');
}

/**
 * fastify's `clientErrorHandler`: Node's parser refused the request (not HTTP, a bad header or
 * length, headers too large, too slow), so there is no request to answer through fastify. The
 * answer is written on the socket as Node itself does (write, then destroy), in our format.
 */
export function clientErrorHandler(security: Readonly<Record<string, string>>) {
  return function (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    this.log.debug({ err: error }, 'refused a request that is not valid HTTP');
    // A response already begun on this socket cannot be followed by another.
    if (socket.writable && socket.bytesWritten === 0) {
      const answer = clientProblem(error.code);
      const body = JSON.stringify(answer);
      const headers = {
        ...security,
        'x-request-id': randomUUID(),
        'content-type': 'application/problem+json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
      };
      const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
      socket.write(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${head.join('\r\n')}\r\n\r\n${body}`);
    }
    socket.destroy(error);
  };
}

/** `headers`: the deployment's security headers (securityHeaders). */
async function plumbing(app: FastifyInstance, options: { headers: Readonly<Record<string, string>> }) {
  // Requests that reach fastify after close() began (pipelined, or on a busy keep-alive
  // connection) get a 503 in our format (app.ts turns fastify's own off).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    void reply.headers(options.headers).header('x-request-id', request.id);
    if (closing) {
      const detail = 'The server is shutting down; try again in a moment.';
      return void sendProblem(reply, problem('shutting_down', detail), {
        connection: 'close',
        'retry-after': '1',
      });
    }
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
      return sendProblem(reply, problem('method_not_allowed', `${request.method} is not allowed here; use ${allow}.`), {
        allow,
      });
    }
    return sendProblem(reply, nothingHere(request));
  });
}

export default fp(plumbing, { name: 'plumbing' });
