// Prometheus metrics at GET /metrics: request counts and latency histograms by route and
// status, plus the process's own (memory, event loop, GC). One registry per app, so tests
// that build many apps do not share counters.
//
// Request counts per route tell a stranger when a person is active, so the endpoint exists
// only when the operator opens it (src/config.ts: `metricsToken`, `metricsLoopback`): to a
// request with the metrics token, or to one straight from this machine. Anyone else gets 401
// when a token is set (so a scraper with a wrong one learns why), else the 404 of an unknown path.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { safeEqual } from '../lib/crypto.ts';
import { classifyAddress } from '../lib/ssrf.ts';
import { sendProblem } from './errors.ts';
import { AppError } from '../core/errors.ts';
import { nothingHere } from './plumbing.ts';
import { problems } from './schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
    /** Counts an answer given outside fastify's routing (a replayed public page). */
    recordResponse(labels: ResponseLabels, seconds: number): void;
    /** Counts what a housekeeping run of this process's worker removed (docs/housekeeping.md). */
    recordPurged(purged: Readonly<Record<string, number>>): void;
  }
}

export interface ResponseLabels {
  method: string;
  /** The route pattern, never the raw URL: ids in paths would make unbounded label sets. */
  route: string;
  statusCode: number;
}

/** Headers a reverse proxy adds: a request carrying one came from elsewhere, whatever its socket says. */
const FORWARDING = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/** The connection comes from this machine and no proxy relayed it. */
function fromThisMachine(request: FastifyRequest): boolean {
  const peer = request.socket.remoteAddress;
  if (peer === undefined || FORWARDING.some((name) => request.headers[name] !== undefined)) return false;
  return classifyAddress(peer) === 'loopback';
}

export interface MetricsOptions {
  /** Requests with `Authorization: Bearer <token>` may read the metrics. */
  token: string | undefined;
  /** Requests from this machine may read them without a token. */
  loopback: boolean;
}

async function metrics(app: FastifyInstance, options: MetricsOptions) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // prom-client finds a series by hashing its labels on every call; a request finds its
  // series once per method, route and status here instead.
  const series = new Map<string, { requests: Counter.Internal; duration: Histogram.Internal<string> }>();
  function record({ method, route, statusCode }: ResponseLabels, seconds: number) {
    const key = `${method} ${route} ${statusCode}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status_code: String(statusCode) };
      found = { requests: requests.labels(labels), duration: duration.labels(labels) };
      series.set(key, found);
    }
    found.requests.inc();
    found.duration.observe(seconds);
  }
  const purgedTotal = new Counter({
    name: 'waypost_housekeeping_removed_total',
    help: 'What housekeeping removed, by kind (docs/housekeeping.md).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  app.decorate('metrics', registry);
  app.decorate('recordPurged', (purged: Readonly<Record<string, number>>) => {
    for (const [kind, count] of Object.entries(purged)) purgedTotal.inc({ kind }, count);
  });
  app.decorate('recordResponse', record);

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    record({ method: request.method, route, statusCode: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });

  if (options.token === undefined && !options.loopback) return; // off: /metrics is an unknown path

  const who = [
    options.token !== undefined ? 'a request with `Authorization: Bearer <WAYPOST_METRICS_TOKEN>`' : undefined,
    options.loopback ? 'a request from this machine (loopback, not relayed by a proxy)' : undefined,
  ].filter(Boolean);
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        description:
          'Request counts and latency histograms by route and status, and process metrics, in the Prometheus text format. ' +
          `Off unless the operator opens it; this server answers ${who.join(' or ')}. ` +
          'Anyone else gets 401 when a metrics token is set, else 404 as for an unknown path.',
        tags: ['operations'],
        response: {
          200: {
            description: 'Prometheus text exposition format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...problems(401, 404),
        },
      },
    },
    async (request, reply) => {
      const { token } = options;
      const withToken = token !== undefined && safeEqual(request.headers.authorization ?? '', `Bearer ${token}`);
      if (!withToken && !(options.loopback && fromThisMachine(request))) {
        if (token === undefined) return sendProblem(reply, nothingHere(request));
        throw new AppError('unauthorized', "The metrics need the operator's metrics token.", {
          headers: { 'www-authenticate': 'Bearer realm="waypost-metrics"' },
        });
      }
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}

export default fp(metrics, { name: 'metrics' });
