// One log line per request, written when it is answered, carrying the request id, method,
// masked URL, status and time (fastify's default writes two lines per request).
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/helpers.ts';
import { buildApp } from '../app.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createLogger, RequestLogController } from '../logger.ts';

const lines: string[] = [];
let test: TestDatabase;
let app: Awaited<ReturnType<typeof buildApp>>;

beforeAll(async () => {
  test = await createTestDatabase();
  await migrateToLatest(test.database);
  const stream = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  app = await buildApp({
    config: testConfig(test.dataDir),
    database: test.database,
    logger: createLogger({ logLevel: 'info', logFormat: 'json' }, stream),
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await test.database.close();
  await test.drop();
});

it('writes one line per request, when it is answered', async () => {
  const response = await app.inject({
    url: '/healthz?token=never-logged',
    headers: { 'x-request-id': 'req-one-line' },
  });
  expect(response.statusCode).toBe(200);
  const mine = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((l) => l.request_id === 'req-one-line');
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({
    level: 30,
    msg: 'request completed',
    req: { method: 'GET', url: '/healthz?token=[redacted]' },
    res: { statusCode: 200 },
  });
  expect(typeof mine[0]!.responseTime).toBe('number');
});

it('writes no secret a request carries into its line', async () => {
  const response = await app.inject({
    url: '/healthz?password=hunter2-in-url&code=code-in-url',
    headers: {
      'x-request-id': 'req-with-secrets',
      authorization: 'Bearer token-in-header',
      cookie: 'waypost_session=cookie-in-header',
    },
  });
  expect(response.statusCode).toBe(200);
  const mine = lines.filter((line) => line.includes('"req-with-secrets"'));
  expect(mine).toHaveLength(1);
  for (const secret of ['hunter2-in-url', 'code-in-url', 'token-in-header', 'cookie-in-header']) {
    expect(mine[0]).not.toContain(secret);
  }
  expect(JSON.parse(mine[0]!)).toMatchObject({
    req: { url: '/healthz?password=[redacted]&code=[redacted]' },
  });
});

it('writes the line of a request that ends in an error through the redaction', async () => {
  // An error can carry anything; its line keeps the redaction the answered request's line skips.
  const errors: string[] = [];
  const stream = new Writable({ write: (chunk, _encoding, done) => (errors.push(String(chunk)), done()) });
  const server = Fastify({
    loggerInstance: createLogger({ logLevel: 'info', logFormat: 'json' }, stream),
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }),
    genReqId: () => 'req-that-errs',
  });
  server.get('/', async () => ({ ok: true }));
  server.addHook('onResponse', async () => {
    throw Object.assign(new Error('after the answer'), { token: 'token-in-error', detail: 'kept' });
  });
  await server.ready();
  try {
    const response = await server.inject({ url: '/?code=code-in-url' });
    expect(response.statusCode).toBe(200);
  } finally {
    await server.close();
  }
  const mine = errors.filter((line) => line.includes('"req-that-errs"'));
  expect(mine).toHaveLength(1);
  expect(mine[0]).not.toContain('token-in-error');
  expect(mine[0]).not.toContain('code-in-url');
  expect(JSON.parse(mine[0]!)).toMatchObject({
    level: 50,
    msg: 'request errored',
    req: { method: 'GET', url: '/?code=[redacted]' },
    res: { statusCode: 200 },
    err: { message: 'after the answer', token: '[redacted]', detail: 'kept' },
  });
});
