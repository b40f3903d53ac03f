// JSON logs with pino. Secrets never reach a log line: credentials in headers are redacted,
// and query parameters that carry tokens, codes or passwords are masked in logged URLs.
import { pino, type DestinationStream, type Logger } from 'pino';
import type { FastifyRequest } from 'fastify';
import type { LogLevel } from './config.ts';

const SECRET_PARAMS = /([?&](?:token|code|code_verifier|password|access_token|refresh_token|client_secret)=)[^&#]*/gi;

export function maskUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

/** `destination` defaults to stdout; tests pass a stream to read what would be logged. */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
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
    },
    destination ?? pino.destination(1),
  );
}
