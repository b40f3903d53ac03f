// JSON logs with pino. Secrets never reach a log line: credentials in headers are redacted,
// and query parameters that carry tokens, codes or passwords are masked in logged URLs.
import { pino, type DestinationStream, type Logger } from 'pino';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from './config.ts';

const SECRET_PARAMS = /([?&](?:token|code|code_verifier|password|access_token|refresh_token|client_secret)=)[^&#]*/gi;

export function maskUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/**
 * Readable lines for a person at a terminal, JSON lines for everything else. `destination`
 * defaults to stdout; tests pass a stream to read what would be logged.
 */
export function createLogger(
  { logLevel, logFormat }: Pick<Config, 'logLevel' | 'logFormat'>,
  destination?: DestinationStream,
): Logger {
  const pretty = !destination && (logFormat === 'pretty' || (logFormat === 'auto' && process.stdout.isTTY));
  const options = {
    level: logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.token',
        '*.secret',
        '*.client_secret',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: maskUrl(request.url),
        remote_address: request.ip,
      }),
    },
  };
  if (pretty) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss' } },
    });
  }
  return pino(options, destination ?? pino.destination(1));
}

/**
 * One line per request, written when it is answered, with what both of fastify's lines held
 * (it writes one when a request arrives and one when it is answered: two writes per request).
 *
 * The line of an answered request holds only fields made here: the request id, the method, the
 * URL with its secrets masked (`maskUrl`), the address, the status and the time. None of the
 * redaction paths can match them, so the line goes out through a child of the server's logger
 * without the redaction pass, which was 4 % of the instructions of a private page
 * (BENCHMARKS.md "Counting instructions"). A line with an error keeps the request's own logger
 * and its redaction: an error may carry anything.
 */
export class RequestLogController extends LogController {
  /** The unredacted child of each server logger the lines went through (one, in practice). */
  readonly #lines = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>();

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const res = { statusCode: reply.statusCode };
    if (error) {
      reply.log.error({ req: request, res, responseTime: reply.elapsedTime, err: error }, 'request errored');
      return;
    }
    const line = { [this.requestIdLogLabel]: request.id, req: request, res, responseTime: reply.elapsedTime };
    this.#linesOf(reply.server.log).info(line, 'request completed');
  }

  #linesOf(server: FastifyBaseLogger): FastifyBaseLogger {
    let lines = this.#lines.get(server);
    if (!lines) this.#lines.set(server, (lines = server.child({}, { redact: [] })));
    return lines;
  }
}
