// The baseline: a bare node:http server that answers every request with the same pre-built
// JSON bytes (read from the file at argv[2]). With argv[3], a JSON file of headers, it sends
// those too (and a fresh request id), to show what the headers alone cost. Prints `{port}`
// and serves until killed.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2] ?? '');
const extra = process.argv[3]
  ? (JSON.parse(readFileSync(process.argv[3], 'utf8')) as Record<string, string>)
  : undefined;
const server = createServer((_request, response) => {
  const headers = extra ? { ...extra, 'x-request-id': randomUUID() } : undefined;
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    ...headers,
    'content-length': body.length,
  });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
