// Small real HTTP servers on 127.0.0.1 that stand in for the outside services a post is
// delivered to. Each records what it received; the test decides how it answers.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes, for binary uploads. */
  raw: Buffer;
}

export type Answer = (request: Received, response: ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered (default 200 with an empty JSON object). */
  answer: Answer;
  /** Resolves when the receiver has seen `count` requests. */
  seen(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    answer: (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    seen: (count) =>
      new Promise<void>((resolve) => {
        if (receiver.received.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const received = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: raw.toString('utf8'),
        raw,
      };
      receiver.received.push(received);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) waiter.resolve();
      receiver.answer(received, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}
