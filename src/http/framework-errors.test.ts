// Every answer fastify or Node would give in their own format is problem+json with the security
// headers and an X-Request-Id: router failures, body-parser failures, unknown paths and methods,
// OPTIONS that is not a preflight, requests Node's HTTP parser refuses, and requests arriving
// while the server shuts down. Each class with its exact status and body.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { connect } from 'node:net';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../test/helpers.ts';
import { listeningTestApp } from '../../test/server.ts';
import { SECURITY_HEADERS } from './plumbing.ts';

let t: TestApp & { baseUrl: string };
let port: number;
let releaseSlow: () => void = () => {};
let slowStarted: Promise<void>;
let markSlowStarted: () => void = () => {};

beforeAll(async () => {
  slowStarted = new Promise((resolve) => (markSlowStarted = resolve));
  t = await listeningTestApp({
    env: { WAYPOST_BODY_LIMIT: '2048' },
    extend: (app) => {
      app
        .withTypeProvider<TypeBoxTypeProvider>()
        .post(
          '/test/things',
          { schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) } },
          async (request) => ({ name: request.body.name }),
        );
      app.get('/test/slow', async () => {
        markSlowStarted();
        await new Promise<void>((resolve) => (releaseSlow = resolve));
        return { slow: true };
      });
    },
  });
  port = Number(new URL(t.baseUrl).port);
});
afterAll(() => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function problem(status: number, title: string, code: string, detail: string) {
  return { type: `urn:waypost:problem:${code}`, title, status, detail, code };
}

/** Status, problem+json, every security header, a request id, and the exact body. */
function expectProblem(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  expected: ReturnType<typeof problem>,
) {
  expect(response.statusCode).toBe(expected.status);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(response.headers).toMatchObject(SECURITY_HEADERS);
  expect(response.headers['x-request-id']).toMatch(UUID);
  expect(JSON.parse(response.body)).toEqual(expected);
}

const inject = (method: string, url: string, headers: Record<string, string> = {}, payload?: string) =>
  t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });

describe('router failures (fastify frameworkErrors)', () => {
  it('a path whose percent-encoding does not decode: 400', async () => {
    for (const path of ['/users/%zz', '/posts/id/%E0%A4%A', '/%%%']) {
      expectProblem(
        await inject('GET', path),
        problem(400, 'Bad Request', 'invalid_request', `'${path}' is not a valid url component`),
      );
    }
  });

  it('a path parameter over 100 characters: 414; 100 is still looked up', async () => {
    const long = 'a'.repeat(101);
    for (const path of [`/users/${long}`, `/posts/id/${long}`, `/views/${long}`]) {
      expectProblem(
        await inject('GET', path),
        problem(414, 'URI Too Long', 'uri_too_long', `'${path}' is exceeding the max param length`),
      );
    }
    const fits = await inject('GET', `/users/${'a'.repeat(100)}`);
    expect(fits.statusCode).toBe(404);
    expect(fits.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('body-parser failures', () => {
  const send = (payload: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    inject('POST', '/test/things', headers, payload);

  it('JSON that does not parse, or none: 400 invalid_json', async () => {
    const bad = problem(
      400,
      'Bad Request',
      'invalid_json',
      "Body is not valid JSON but content-type is set to 'application/json'",
    );
    for (const payload of ['{"name":', '{bad', 'nul', '{"__proto__":{"x":1}}']) expectProblem(await send(payload), bad);
    expectProblem(
      await send(''),
      problem(
        400,
        'Bad Request',
        'invalid_json',
        "Body cannot be empty when content-type is set to 'application/json'",
      ),
    );
  });

  it('a body over the limit: 413', async () => {
    expectProblem(
      await send(JSON.stringify({ name: 'x'.repeat(4096) })),
      problem(413, 'Payload Too Large', 'payload_too_large', 'Request body is too large'),
    );
  });

  it('a media type the route does not take: 415', async () => {
    for (const type of ['application/xml', 'application/x-www-form-urlencoded', 'image/png']) {
      expectProblem(
        await send('x', { 'content-type': type }),
        problem(415, 'Unsupported Media Type', 'unsupported_media_type', 'Unsupported Media Type'),
      );
    }
  });

  it('a body shorter than its Content-Length: 400', async () => {
    expectProblem(
      await send('{"name":"x"}', { 'content-type': 'application/json', 'content-length': '100' }),
      problem(400, 'Bad Request', 'invalid_request', 'Request body size did not match Content-Length'),
    );
  });
});

describe('unknown paths and methods', () => {
  it('an unknown path: 404', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/no/such/thing'],
      ['DELETE', '//'],
    ] as const) {
      expectProblem(
        await inject(method, `${path}?x=1`),
        problem(404, 'Not Found', 'not_found', `Nothing lives at ${method} ${path}.`),
      );
    }
  });

  it('a known path with another method: 405 with Allow', async () => {
    const response = await inject('PUT', '/test/things');
    expectProblem(
      response,
      problem(405, 'Method Not Allowed', 'method_not_allowed', 'PUT is not allowed here; use POST.'),
    );
    expect(response.headers.allow).toBe('POST');
  });

  it('OPTIONS that is not a CORS preflight: 405 on a known path, 404 elsewhere; a preflight still 204', async () => {
    const known = await inject('OPTIONS', '/test/things');
    expectProblem(
      known,
      problem(405, 'Method Not Allowed', 'method_not_allowed', 'OPTIONS is not allowed here; use POST.'),
    );
    expect(known.headers.allow).toBe('POST');
    expectProblem(
      await inject('OPTIONS', '/nope', { origin: 'https://app.example' }),
      problem(404, 'Not Found', 'not_found', 'Nothing lives at OPTIONS /nope.'),
    );
    const preflight = await inject('OPTIONS', '/test/things', {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });
});

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function raw(data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** The first response in raw HTTP/1.1 bytes, as status, headers (lower case) and body. */
function parse(answer: string) {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  const length = Number(headers['content-length']);
  return {
    statusLine,
    statusCode: Number(statusLine.split(' ')[1]),
    headers,
    body: rest.join('\r\n\r\n').slice(0, length),
  };
}

describe("requests Node's HTTP parser refuses", () => {
  const malformed = problem(400, 'Bad Request', 'malformed_request', 'The request is not valid HTTP/1.1.');

  it.each([
    ['not HTTP at all', 'GARBAGE\r\n\r\n'],
    ['a request target that is not a path', 'GET nopath HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a byte outside the allowed set in the target', 'GET /posts/id/\x7f HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a Content-Length that is not a number', 'POST /test/things HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}'],
    [
      'both Transfer-Encoding and Content-Length',
      'POST /test/things HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
    ],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n'],
  ])('%s: 400', async (_, request) => {
    const answer = parse(await raw(request));
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(answer.headers.connection).toBe('close');
    expectProblem(answer, malformed);
  });

  it('headers over the size limit: 431', async () => {
    const answer = parse(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(answer.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expectProblem(
      answer,
      problem(
        431,
        'Request Header Fields Too Large',
        'headers_too_large',
        'The request line and headers are too large.',
      ),
    );
  });
});

describe('shutting down', () => {
  it('a request that reaches the server after close() began: 503 with Retry-After', async () => {
    // A keep-alive connection busy with a request when close() begins stays open until that
    // answer is sent; the next request on it reaches fastify while the server is closing.
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('utf8');
    let received = '';
    socket.on('data', (chunk: string) => (received += chunk));
    const receivedEnough = async (done: (text: string) => boolean) => {
      while (!done(received)) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await slowStarted;
    const closed = t.app.close();
    // The server stops listening right after the preClose hooks ran: from then on, closing.
    const listening = () =>
      new Promise<boolean>((resolve) => {
        const probe = connect(port, '127.0.0.1');
        probe.on('connect', () => (probe.destroy(), resolve(true))).on('error', () => resolve(false));
      });
    while (await listening()) await new Promise((resolve) => setTimeout(resolve, 20));
    releaseSlow();
    await receivedEnough((text) => text.endsWith('{"slow":true}'));
    expect(parse(received).statusCode).toBe(200);
    received = '';
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: late-1\r\n\r\n');
    await ended;
    await closed;
    const response = parse(received);
    expect(response.statusLine).toBe('HTTP/1.1 503 Service Unavailable');
    expect(response.headers.connection).toBe('close');
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['x-request-id']).toBe('late-1');
    expect(response.headers).toMatchObject(SECURITY_HEADERS);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual(
      problem(503, 'Service Unavailable', 'shutting_down', 'The server is shutting down; try again in a moment.'),
    );
  });
});
