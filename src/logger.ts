// JSON logs with pino. Secrets never reach a log line: credentials in headers are redacted,
// and query parameters that carry tokens, codes or passwords are masked in logged URLs.
import { pino, type DestinationStream, type Logger } from 'pino';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
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
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
